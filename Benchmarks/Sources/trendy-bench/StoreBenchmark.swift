import ArgumentParser
import BenchmarkSupport
import Foundation
import Models
import Persistence
import Protocols

/// Applying pulled pages, local writes, and raw SQLite as the reference.
struct StoreBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "Apply pulled pages, local writes, and the raw SQLite reference.")

    @Option(help: "Number of events.") var events = 10_000
    @Option(help: "Events per pulled page (one transaction each).") var pageSize = 100
    @Option(help: "Repetitions; the best run is reported.") var runs = 3
    @Flag(help: "Only apply pulled pages (for profiling).") var applyOnly = false

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pulled = PulledEvents.make(count: events)
        print("store benchmark: \(events) events, pages of \(pageSize), best of \(runs) runs")

        var best = (apply: Double.infinity, raw: Double.infinity)
        var applyPages = Samples()
        var writes = Samples()
        for run in 0..<runs {
            let applyPath = directory.appendingPathComponent("apply-\(run).sqlite").path
            let pages = try Self.applyPages(pulled, pageSize: pageSize, path: applyPath)
            if pages.total < best.apply { (best.apply, applyPages) = (pages.total, pages) }
            if applyOnly { continue }
            let rawPath = directory.appendingPathComponent("raw-\(run).sqlite").path
            best.raw = min(best.raw, try Self.rawInsert(pulled, path: rawPath))
            let localPath = directory.appendingPathComponent("local-\(run).sqlite").path
            let samples = try Self.localWrites(count: events, path: localPath)
            if writes.values.isEmpty || samples.percentile(0.5) < writes.percentile(0.5) { writes = samples }
        }
        Report.row(
            "apply pulled pages (upsert + cursor, 1 tx/page)",
            [
                Report.rate(events, best.apply), "page p50 \(Report.milliseconds(applyPages.percentile(0.5)))",
                "p99 \(Report.milliseconds(applyPages.percentile(0.99)))",
            ])
        Report.row("raw SQLite C API (1 statement, 1 tx)", [Report.rate(events, best.raw)])
        Report.row("apply / raw", [String(format: "%.2fx slower", best.apply / best.raw)])
        Report.row(
            "local write (entity + mutation, 1 tx each)",
            [
                Report.rate(events, writes.total), "p50 \(Report.milliseconds(writes.percentile(0.5)))",
                "p99 \(Report.milliseconds(writes.percentile(0.99)))",
            ])
    }

    /// The pull path (`StoreWork.applyPage`), one page timed at a time. Opening the database is setup, outside the
    /// timed pages (the raw reference does not pay for it either).
    static func applyPages(_ events: [APIEvent], pageSize: Int, path: String) throws -> Samples {
        let factory = try DefaultDataStoreFactory(.file(path: path))
        var samples = Samples()
        for start in stride(from: 0, to: events.count, by: pageSize) {
            let page = events[start..<min(start + pageSize, events.count)]
            samples.append(
                try Measure.seconds { try StoreWork.applyPage(page, cursor: Int64(page.endIndex), to: factory) })
        }
        return samples
    }

    /// The local-write path (`StoreWork.writeLocalEvent`), timed per write.
    static func localWrites(count: Int, path: String) throws -> Samples {
        let factory = try DefaultDataStoreFactory(.file(path: path))
        let typeId = UUIDv7.generate(at: Date())
        var samples = Samples()
        for index in 0..<count {
            samples.append(
                try Measure.seconds { try StoreWork.writeLocalEvent(typeId: typeId, index: index, to: factory) })
        }
        return samples
    }

    /// The reference: the same rows through one prepared statement in one transaction, same schema and pragmas.
    static func rawInsert(_ events: [APIEvent], path: String) throws -> Double {
        let raw = try RawSQLite(path: path)
        let properties = try RawSQLite.encodedProperties(events)
        return try Measure.seconds { try raw.insert(events, properties: properties) }
    }
}
