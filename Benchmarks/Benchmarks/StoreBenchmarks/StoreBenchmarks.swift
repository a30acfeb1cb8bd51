import Benchmark
import BenchmarkSupport
import Foundation
import Models
import Persistence
import RegressionGates

/// The local store on a real SQLite file (WAL): applying pulled pages, the raw SQLite reference for the same rows,
/// and one local write. One iteration of the page benchmarks applies the next page of new events to the same database,
/// as a bootstrap or a long pull does.
let benchmarks: @Sendable () -> Void = {
    let pageSize = 500  // SyncConfiguration.throughput's feed page
    let pages = 60
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-store-bench-\(UUID())")
    let events = PulledEvents.make(count: pageSize * pages)
    func page(_ iteration: Int) -> ArraySlice<APIEvent> {
        let first = (iteration % pages) * pageSize
        return events[first..<first + pageSize]
    }
    func file(_ name: String) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    let applied = Once { try DefaultDataStoreFactory(.file(path: try file("apply.sqlite"))) }
    Benchmark(
        "apply-pulled-page-500",
        configuration: .gated(maxIterations: pages - 2)
    ) { benchmark in
        let factory = try await applied.get()
        let events = page(benchmark.currentIteration)
        benchmark.startMeasurement()
        try StoreWork.applyPage(events, cursor: Int64(benchmark.currentIteration + 1), to: factory)
        benchmark.stopMeasurement()
    }

    let raw = Once { try RawSQLite(path: try file("raw.sqlite")) }
    Benchmark(
        "raw-sqlite-insert-500",
        configuration: .gated(maxIterations: pages - 2)
    ) { benchmark in
        let raw = try await raw.get()
        let events = page(benchmark.currentIteration)
        let properties = try RawSQLite.encodedProperties(events)
        benchmark.startMeasurement()
        try raw.insert(events, properties: properties)
        benchmark.stopMeasurement()
    }

    let local = Once { try DefaultDataStoreFactory(.file(path: try file("local.sqlite"))) }
    Benchmark(
        "local-write",
        configuration: .gated(maxIterations: 500)
    ) { benchmark in
        let factory = try await local.get()
        benchmark.startMeasurement()
        try StoreWork.writeLocalEvent(typeId: PulledEvents.userId, index: benchmark.currentIteration, to: factory)
        benchmark.stopMeasurement()
    }

    Benchmark.teardown = { try? FileManager.default.removeItem(at: directory) }
}
