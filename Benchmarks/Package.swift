// swift-tools-version:6.2
// The benchmarks, a package apart so that `make build` and `make test` never compile them. `make bench` runs them
// through ordo-one/benchmark and fails when instructions or allocations grow more than 10 % over the thresholds
// checked in under Thresholds/ (docs/performance.md). The stack itself comes from the package one folder up.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let stack = "trendy-sync"
let benchmark: Target.Dependency = .product(name: "Benchmark", package: "benchmark")

/// A benchmark target of the plugin: its folder must sit in `Benchmarks/`.
func benchmarkTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [benchmark, "BenchmarkSupport", "RegressionGates"] + dependencies,
        path: "Benchmarks/\(name)",
        swiftSettings: swiftSettings,
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "trendy-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: stack, path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "Models", package: stack), .product(name: "Protocols", package: stack),
                .product(name: "Persistence", package: stack), .product(name: "Networking", package: stack),
                .product(name: "TrendyServerTesting", package: stack),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/BenchmarkSupport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RegressionGates", dependencies: [benchmark], path: "Sources/RegressionGates",
            swiftSettings: swiftSettings),
        benchmarkTarget(
            "StoreBenchmarks",
            [.product(name: "Models", package: stack), .product(name: "Persistence", package: stack)]),
        benchmarkTarget("CodingBenchmarks", [.product(name: "Models", package: stack)]),
        benchmarkTarget(
            "SyncBenchmarks",
            [
                .product(name: "Models", package: stack), .product(name: "Persistence", package: stack),
                .product(name: "Networking", package: stack), .product(name: "Sync", package: stack),
                .product(name: "Hashing", package: stack),
            ]),
        // The wall-clock tables of docs/performance.md (store, in-process sync scenarios, events add).
        .executableTarget(
            name: "trendy-bench",
            dependencies: [
                "BenchmarkSupport", .product(name: "Models", package: stack),
                .product(name: "Protocols", package: stack), .product(name: "Persistence", package: stack),
                .product(name: "Networking", package: stack), .product(name: "Sync", package: stack),
                .product(name: "Hashing", package: stack), .product(name: "TrendyServerTesting", package: stack),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/trendy-bench",
            swiftSettings: swiftSettings
        ),
    ]
)
