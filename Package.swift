// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Corkboard",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BoardCore", targets: ["BoardCore"]),
        .library(name: "BoardWire", targets: ["BoardWire"]),
        .library(name: "BoardTransport", targets: ["BoardTransport"]),
        .library(name: "BoardStore", targets: ["BoardStore"]),
        .library(name: "BoardServer", targets: ["BoardServer"]),
        .executable(name: "corkd", targets: ["corkd"]),
        .library(name: "BoardClientCore", targets: ["BoardClientCore"]),
        .library(name: "BoardClient", targets: ["BoardClient"]),
        .executable(name: "cork", targets: ["cork"]),
        .executable(name: "cork-load", targets: ["cork-load"]),
        .library(name: "TerminalUI", targets: ["TerminalUI"]),
        .library(name: "BoardHistory", targets: ["BoardHistory"]),
        .executable(name: "cork-history", targets: ["cork-history"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
    ],
    targets: [
        // Pure domain model: board, ops, reducer, ranks, query language, snapshot diff, board hash. No I/O.
        // swift-crypto for the board hash's SHA-256 (DESIGN.md allows it here).
        .target(name: "BoardCore", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Wire envelopes, error codes, limits and the JSON-line pre-scan. No I/O.
        .target(name: "BoardWire", dependencies: ["BoardCore"]),
        // The NIO pipeline both sides use: TLS, bounded line framing, outbox limits, certificates and pinning.
        .target(
            name: "BoardTransport",
            dependencies: [
                "BoardWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                // A WebSocket client for the load generator's web sessions and the tests.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Durable storage: the store protocol, its SQLite (GRDB) implementation for one node and its PostgreSQL
        // (postgres-nio) implementation for several.
        .target(
            name: "BoardStore",
            dependencies: [
                "BoardCore", "BoardTransport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The server: sessions, one actor per board (sequencer, group commit, fan-out), auth, presence, limits.
        .target(
            name: "BoardServer",
            dependencies: [
                "BoardCore", "BoardWire", "BoardTransport", "BoardStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // The admin listener: Prometheus text on GET /metrics and the health port.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Outgoing webhooks: the POSTs, and their HMAC-SHA256 signatures.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                // A board's recent log: a ring that grows by moving its entries, not copying them.
                .product(name: "DequeModule", package: "swift-collections"),
            ]),
        // The web listener: the board page (files compiled in), its live channel run by a BoardClient per tab, the
        // session cookie, and the wire protocol over WebSocket. NIO's own HTTP/1.1 and WebSocket (see docs/web.md).
        .target(
            name: "BoardWeb",
            dependencies: [
                "BoardServer", "BoardClient", "BoardClientCore", "BoardCore", "BoardWire", "BoardTransport", "CorkApp",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [
                .embedInCode("Resources/index.html"), .embedInCode("Resources/app.js"),
                .embedInCode("Resources/style.css"), .embedInCode("Resources/icon.svg"),
            ]),
        // The version, in one place, with the git commit the build plugin records.
        .target(name: "BuildInfo", dependencies: ["BoardWire"], plugins: ["BuildCommit"]),
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // The server executable: argument parsing, configuration and lifecycle only.
        .executableTarget(
            name: "corkd",
            dependencies: [
                "BuildInfo",
                "BoardServer", "BoardWeb", "BoardStore", "BoardTransport", "BoardWire", "BoardCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // corkd.toml (configuration file) parsing.
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        // The client's pure core, no NIO and no clock: replica (confirmed + pending), pending ops, the journal's
        // model, the connection machine, the client's events.
        .target(name: "BoardClientCore", dependencies: ["BoardCore", "BoardWire"]),
        // The client library: the driver that runs the core on a TLS connection, timers and the journal file.
        .target(
            name: "BoardClient",
            dependencies: [
                "BoardClientCore", "BoardCore", "BoardWire", "BoardTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The terminal toolkit: screen buffer, cell-diff renderer, key decoder, raw mode. Knows nothing of boards.
        .target(name: "TerminalUI"),
        // The `cork` client's logic: one-shot commands, card references, feed sentences, Trello import, export.
        // Built on the client library like any UI: `BoardClient` and `BoardCore`, never `BoardWire`.
        .target(name: "CorkApp", dependencies: ["BoardClient", "BoardCore", "TerminalUI"]),
        // The terminal client executable: argument parsing only.
        .executableTarget(
            name: "cork",
            dependencies: [
                "BuildInfo",
                "CorkApp", "BoardClient", "BoardCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // A bot built on the client library that reacts to deltas (Examples/SwiftBot).
        .executableTarget(
            name: "cork-swift-bot",
            dependencies: ["BoardClient", "BoardCore"],
            path: "Examples/SwiftBot"),
        // Tests only: an in-process server on 127.0.0.1:0, the real corkd in a process, a raw line probe.
        .target(
            name: "BoardTesting",
            dependencies: [
                "BoardServer", "BoardStore", "BoardTransport", "BoardWire", "BoardCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        // Load generator: simulated TLS clients speaking Protocol.md, latency histograms, convergence checks.
        .executableTarget(
            name: "cork-load",
            dependencies: [
                "BuildInfo",
                // Neither BoardServer nor BoardStore: --spawn sets corkd up with corkd's own admin commands and reads
                // what it writes (listen.json, owner.url) with BoardWire's types.
                "BoardCore", "BoardWire", "BoardTransport",
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        // The soak's history checker: recorded histories in, violations out. Pure.
        .target(name: "BoardHistory"),
        // `cork-history FILE…`: checks recorded soak histories (scripts/soak runs it).
        .executableTarget(name: "cork-history", dependencies: ["BuildInfo", "BoardHistory"]),
        .testTarget(name: "BoardHistoryTests", dependencies: ["BoardHistory"]),
        .testTarget(
            name: "BoardCoreTests",
            dependencies: [
                "BoardCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "BoardWireTests",
            dependencies: ["BoardWire", "BoardCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "BoardTransportTests",
            dependencies: [
                "BoardTransport", "BoardWire", "BoardTesting",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "BoardStoreTests",
            dependencies: [
                "BoardStore", "BoardCore", "BoardTesting", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "BoardServerTests",
            dependencies: [
                "BoardServer", "BoardTesting", "BoardTransport", "BoardStore", "BoardWire", "BoardCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(
            name: "BoardWebTests",
            dependencies: [
                "BoardWeb", "BoardTesting", "BoardClient", "BoardClientCore", "BoardTransport", "BoardWire", "BoardCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]),
        .testTarget(
            name: "BoardClientTests",
            dependencies: [
                "BoardClient", "BoardClientCore", "BoardTesting", "BoardServer", "BoardStore", "BoardTransport", "BoardWire",
                "BoardCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "CorkLoadTests",
            dependencies: [
                "cork-load", "BoardCore", "BoardWire", "BoardTesting",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(
            name: "CorkAppTests",
            dependencies: ["CorkApp", "BoardClient", "BoardTesting", "BoardWire", "BoardCore", "TerminalUI"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ExamplesTests",
            dependencies: ["BoardTesting", "BoardTransport", "BoardWire", "BoardCore"]),
    ],
    swiftLanguageModes: [.v6]
)
