import Benchmark
import BenchmarkSupport
import Foundation
import Hashing
import Models
import Networking
import Persistence
import RegressionGates
import Sync

/// Whole syncs of the engine on a real SQLite file, over real HTTP, against a release `trendy-server --in-memory` in a
/// process of its own (`TRENDY_BIN_DIR` names the folder of its binary; `make bench` builds it). Everything counted
/// here is the client's: allocations of a bootstrap divided by its events are the allocations per pulled event.
let benchmarks: @Sendable () -> Void = {
    let bootstrapEvents = 10_000
    let pushEvents = 1_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-sync-bench-\(UUID())")
    let server = Once {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = try await BenchServer.start(users: 70)
        try await server.seed(user: 1, events: bootstrapEvents)
        return server
    }
    /// A new device of `user`: its own database file, trendyctl's configuration (`.throughput`).
    func device(user: Int) async throws -> (SyncEngine, EventStore) {
        let server = try await server.get()
        let stores = try DefaultDataStoreFactory(
            .file(path: directory.appendingPathComponent("device-\(UUID()).sqlite").path))
        let engine = SyncEngine(
            networkClient: try server.client(user: user), dataStoreFactory: stores, hashing: CryptoSHA256(),
            configuration: .throughput(serverRoot: server.root))
        return (engine, EventStore(engine: engine, dataStoreFactory: stores))
    }

    Benchmark(
        "bootstrap-10k",
        configuration: .gated(maxIterations: 10, maxDuration: .seconds(60))
    ) { benchmark in
        let (engine, _) = try await device(user: 1)
        benchmark.startMeasurement()
        let report = await engine.performSync()
        benchmark.stopMeasurement()
        // The account's events and its one event type.
        guard report.pulled == bootstrapEvents + 1 else { throw SyncBenchmarkFailure.unexpected(report) }
    }

    // Users 2… : one new account per iteration.
    Benchmark(
        "push-1k",
        configuration: .gated(maxIterations: 20, maxDuration: .seconds(60))
    ) { benchmark in
        let (engine, local) = try await device(user: benchmark.currentIteration + 2)
        let type = try await local.createEventType(name: "Bench")
        _ = await engine.performSync()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<pushEvents {
            try await local.createEvent(eventTypeId: type.id, timestamp: start + Double(index)) {
                $0.notes = "offline event \(index)"
            }
        }
        benchmark.startMeasurement()
        let report = await engine.performSync()
        benchmark.stopMeasurement()
        guard report.pushed == pushEvents else { throw SyncBenchmarkFailure.unexpected(report) }
    }

    Benchmark(
        "pull-1k",
        configuration: .gated(maxIterations: 20, maxDuration: .seconds(60))
    ) { benchmark in
        // Users 40… : a writer device pushes 1000 events, then an up-to-date reader of the same account pulls them.
        let user = 40 + benchmark.currentIteration
        let (writer, written) = try await device(user: user)
        let (reader, _) = try await device(user: user)
        let type = try await written.createEventType(name: "Bench")
        _ = await writer.performSync()
        _ = await reader.performSync()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<pushEvents {
            try await written.createEvent(eventTypeId: type.id, timestamp: start + Double(index)) {
                $0.notes = "event \(index)"
            }
        }
        _ = await writer.performSync()
        benchmark.startMeasurement()
        let report = await reader.performSync()
        benchmark.stopMeasurement()
        guard report.pulled == pushEvents else { throw SyncBenchmarkFailure.unexpected(report) }
    }

    let upToDate = Once {
        let (engine, _) = try await device(user: 1)
        _ = await engine.performSync()
        _ = await engine.performSync()  // the first incremental round pulls the bootstrap's tail
        return engine
    }
    Benchmark("noop-sync", configuration: .gated(maxIterations: 200)) { benchmark in
        let engine = try await upToDate.get()
        benchmark.startMeasurement()
        let report = await engine.performSync()
        benchmark.stopMeasurement()
        guard report.pulled == 0, report.pushed == 0 else { throw SyncBenchmarkFailure.unexpected(report) }
    }

    Benchmark.teardown = {
        server.made?.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

enum SyncBenchmarkFailure: Error {
    case unexpected(SyncReport)
}
