// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Corkboard",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "BoardCore", targets: ["BoardCore"]),
        .library(name: "BoardWire", targets: ["BoardWire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // Pure domain model: board, ops, reducer, ranks, query language, snapshot diff, board hash. No I/O.
        .target(name: "BoardCore"),
        // Wire envelopes, error codes, limits and the JSON-line pre-scan. No I/O.
        .target(name: "BoardWire", dependencies: ["BoardCore"]),
        .testTarget(
            name: "BoardCoreTests",
            dependencies: ["BoardCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "BoardWireTests",
            dependencies: ["BoardWire", "BoardCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
