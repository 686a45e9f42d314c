// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CorkboardBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Corkboard", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CorkBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "BoardCore", package: "Corkboard"),
                .product(name: "BoardWire", package: "Corkboard"),
                .product(name: "BoardTransport", package: "Corkboard"),
                .product(name: "BoardStore", package: "Corkboard"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Benchmarks/CorkBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // The client core on a 10,000-card board. Only the pure targets, no NIO and no TLS (BoardCore's
        // swift-crypto still brings BoringSSL on Linux): `swift package benchmark --target ClientBenchmarks`.
        .executableTarget(
            name: "ClientBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "BoardCore", package: "Corkboard"),
                .product(name: "BoardWire", package: "Corkboard"),
                .product(name: "BoardClientCore", package: "Corkboard"),
            ],
            path: "Benchmarks/ClientBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
