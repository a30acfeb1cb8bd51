// swift-tools-version:6.2
// The package graph is the architecture: each library target below is one layer, and the dependency
// lists are the only edges allowed. `Tests/ArchitectureTests` fails the build if an edge or an import
// bypasses them (see docs/architecture.md).

import PackageDescription

/// One list of Swift settings shared by every target, so the whole repository compiles under the same rules.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
/// GRDB's own SQLite C module, for the few hot statements bound without boxing (Persistence/Records).
let grdbSQLite: Target.Dependency = .product(name: "GRDBSQLite", package: "GRDB.swift")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let postgres: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let subprocess: Target.Dependency = .product(name: "Subprocess", package: "swift-subprocess")

// SwiftNIO and HTTP types: the server, its testing library and the streaming client.
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")

let package = Package(
    name: "trendy-sync",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Models", targets: ["Models"]),
        .library(name: "Protocols", targets: ["Protocols"]),
        .library(name: "Persistence", targets: ["Persistence"]),
        .library(name: "Networking", targets: ["Networking"]),
        .library(name: "Sync", targets: ["Sync"]),
        .library(name: "Hashing", targets: ["Hashing"]),
        .library(name: "TestSupport", targets: ["TestSupport"]),
        .library(name: "TestSupportContracts", targets: ["TestSupportContracts"]),
        // trendy-server in a test's or a benchmark's hands: as a child process, or live in-process on 127.0.0.1.
        .library(name: "TrendyServerTesting", targets: ["TrendyServerTesting"]),
        .executable(name: "trendyctl", targets: ["trendyctl"]),
        .executable(name: "trendy-server", targets: ["trendy-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // MARK: Layers (Modules/)
        .target(name: "Models", path: "Modules/Models", swiftSettings: swiftSettings),
        .target(name: "Protocols", dependencies: ["Models"], path: "Modules/Protocols", swiftSettings: swiftSettings),
        .target(
            name: "Persistence",
            dependencies: ["Models", "Protocols", grdb, grdbSQLite, logging],
            path: "Modules/Persistence",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Networking",
            // async-http-client carries every request (APIClient.http says why).
            dependencies: [
                "Models", "Protocols", logging, .product(name: "AsyncHTTPClient", package: "async-http-client"),
                nioCore, .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Modules/Networking",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Sync",
            dependencies: ["Models", "Protocols", logging],
            path: "Modules/Sync",
            swiftSettings: swiftSettings
        ),
        // The live SHA-256 behind `Protocols.SHA256Hashing`, apart so that Sync and Models link no crypto library.
        .target(
            name: "Hashing", dependencies: ["Protocols", crypto], path: "Modules/Hashing", swiftSettings: swiftSettings),
        .target(
            name: "TestSupport",
            dependencies: ["Models", "Protocols", "Sync", "Persistence", "Hashing"],
            path: "Modules/TestSupport",
            swiftSettings: swiftSettings
        ),
        // The contract suites, apart so that TestSupport (used by trendyctl's in-memory configuration) does not
        // link the Testing library.
        .target(
            name: "TestSupportContracts",
            dependencies: ["Models", "Protocols", "TestSupport"],
            path: "Modules/TestSupportContracts",
            swiftSettings: swiftSettings
        ),

        // MARK: Apps (Apps/) compose the layers
        .target(
            name: "TrendyServer",
            dependencies: [
                "Models", "Protocols", "Hashing", grdb, grdbSQLite, logging, hummingbird, postgres, crypto,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"), httpTypes, nioCore, nioPosix,
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            path: "Apps/trendy-server/Sources/TrendyServer",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "trendy-server",
            dependencies: [
                "TrendyServer", "Models", argumentParser, logging, nioCore, nioPosix,
            ],
            path: "Apps/trendy-server/Sources/trendy-server",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TrendyServerTesting",
            dependencies: [
                "TrendyServer", "Models", logging, hummingbird, subprocess, httpTypes, nioCore, nioPosix,
            ],
            path: "Apps/trendy-server/Sources/TrendyServerTesting",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TrendyCLI",
            dependencies: [
                "Models", "Protocols", "Persistence", "Networking", "Sync", "Hashing", argumentParser, logging,
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Apps/trendyctl/Sources/TrendyCLI",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "trendyctl",
            dependencies: ["TrendyCLI"],
            path: "Apps/trendyctl/Sources/trendyctl",
            swiftSettings: swiftSettings
        ),
        // MARK: Proof (Tests/Proof): long randomized runs against the real parts, short ones inside `make test`
        .target(
            name: "Proofs",
            dependencies: [
                "Models", "Protocols", "Persistence", "Networking", "Sync", "Hashing", "TestSupport",
                "TrendyServer", "TrendyServerTesting", "ParserChecks", grdb,
            ],
            path: "Tests/Proof/Proofs",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParserChecks", dependencies: ["Models"], path: "Tests/Proof/ParserChecks",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "trendy-fuzz",
            dependencies: ["ParserChecks"],
            path: "Tests/Proof/trendy-fuzz",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "trendy-proof",
            dependencies: ["Proofs", "TrendyServer", "TrendyServerTesting", argumentParser],
            path: "Tests/Proof/trendy-proof",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests mirror the modules one to one
        .testTarget(
            name: "ModelsTests", dependencies: ["Models", "Protocols", "Hashing", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "HashingTests", dependencies: ["Hashing", "Protocols"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PersistenceTests",
            dependencies: ["Models", "Protocols", "Persistence", "TestSupport", "TestSupportContracts", grdb],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TestSupportTests",
            dependencies: ["Models", "Protocols", "Persistence", "TestSupport", "TestSupportContracts"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetworkingTests",
            dependencies: [
                "Models", "Protocols", "Networking", "TestSupport", "TestSupportContracts", "TrendyServer",
                "TrendyServerTesting",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TrendyServerTests",
            dependencies: [
                "Models", "Protocols", "Networking", "TrendyServer", "TrendyServerTesting", "TestSupport",
                "TestSupportContracts", crypto, grdb, .product(name: "HummingbirdTesting", package: "hummingbird"),
                httpTypes, nioCore, .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SyncTests",
            dependencies: ["Models", "Protocols", "Sync", "Hashing", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        // The trendyctl binary, run as users run it, against trendy-server on 127.0.0.1.
        .testTarget(
            name: "TrendyCLITests",
            dependencies: [
                "Models", "Protocols", "Sync", "TestSupport", "TrendyCLI", "TrendyServer", "TrendyServerTesting",
                argumentParser, grdb,
            ],
            swiftSettings: swiftSettings
        ),
        // Every layer real: engines on SQLite files syncing with trendy-server over loopback HTTP.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "Models", "Protocols", "Persistence", "Networking", "Sync", "Hashing", "TestSupport", "TrendyServer",
                "TrendyServerTesting", grdb,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ProofTests",
            dependencies: ["Proofs", "TrendyServer", "TrendyServerTesting"],
            swiftSettings: swiftSettings
        ),
        // The DocC articles' snippets, compiled and run; the articles must quote them exactly.
        .testTarget(
            name: "DocumentationTests",
            dependencies: ["Models", "Protocols", "Persistence", "Sync", "Hashing", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ArchitectureTests", dependencies: [subprocess], swiftSettings: swiftSettings),
    ]
)
