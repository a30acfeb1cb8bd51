import ArgumentParser
import Foundation
import GRDBSQLite
import Models
import Persistence
import Protocols

/// Issue 2, item 7: applying pulled pages, local writes, and raw SQLite as the reference.
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
        let pulled = Self.makeEvents(count: events)
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

    /// Events as a pull would deliver them: realistic fields, a property on every third one.
    static func makeEvents(count: Int) -> [APIEvent] {
        let now = Date()
        let typeId = UUIDv7.generate(at: now)
        return (0..<count).map { index in
            APIEvent(
                id: UUIDv7.generate(at: now), userId: "5b3c1d2e-8f4a-4b6c-9d0e-1f2a3b4c5d6e", eventTypeId: typeId,
                timestamp: now.addingTimeInterval(Double(-index) * 60).roundedToMilliseconds,
                notes: index.isMultiple(of: 2) ? "note \(index)" : nil, sourceType: .manual,
                locationLatitude: index.isMultiple(of: 5) ? 52.52 : nil,
                locationLongitude: index.isMultiple(of: 5) ? 13.405 : nil,
                properties: index.isMultiple(of: 3) ? ["mood": PropertyValue(type: .text, value: "good")] : [:],
                createdAt: now, updatedAt: now)
        }
    }

    /// The pull path: one unit of work per page, every event upserted, the cursor saved with the page. Opening the
    /// database is setup, outside the timed pages (the raw reference does not pay for it either).
    static func applyPages(_ events: [APIEvent], pageSize: Int, path: String) throws -> Samples {
        let factory = try DefaultDataStoreFactory(.file(path: path))
        var samples = Samples()
        var cursor: Int64 = 0
        for start in stride(from: 0, to: events.count, by: pageSize) {
            let page = events[start..<min(start + pageSize, events.count)]
            samples.append(
                try Measure.seconds {
                    let store = factory.makeDataStore()
                    var state = try store.loadEngineState()
                    for event in page {
                        try store.upsertEvent(id: event.id) { $0.replaceFields(with: event) }
                    }
                    cursor += Int64(page.count)
                    state.cursor = cursor
                    try store.saveEngineState(state)
                    try store.save()
                })
        }
        return samples
    }

    /// The local-write path: entity row and its create mutation in one unit of work (timed per write).
    static func localWrites(count: Int, path: String) throws -> Samples {
        let factory = try DefaultDataStoreFactory(.file(path: path))
        let typeId = UUIDv7.generate(at: Date())
        var samples = Samples()
        for index in 0..<count {
            samples.append(
                try Measure.seconds {
                    let now = Date()
                    let event = Event(
                        id: UUIDv7.generate(at: now), eventTypeId: typeId, timestamp: now.roundedToMilliseconds,
                        notes: index.isMultiple(of: 2) ? "note" : nil)
                    let store = factory.makeDataStore()
                    try store.upsertEvent(id: event.id) { $0 = event }
                    try store.setSyncStatus(.pending, entityType: .event, id: event.id)
                    _ = try store.enqueueMutation(
                        entityType: .event, operation: .create, entityId: event.id,
                        payload: try MutationPayload.create(event), at: now)
                    try store.save()
                })
        }
        return samples
    }

    /// The reference: the same rows through one prepared statement in one transaction, same schema and pragmas.
    static func rawInsert(_ events: [APIEvent], path: String) throws -> Double {
        _ = try DatabaseStorage.open(.file(path: path))  // same schema and indexes
        var connection: OpaquePointer?
        guard sqlite3_open(path, &connection) == SQLITE_OK, let db = connection else { throw RawError.open }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nil, nil, nil)
        let rows = try events.map { event in
            (event, try JSONCoding.encode(event.properties))
        }
        let sql = """
            INSERT INTO event (id, event_type_id, timestamp, notes, is_all_day, end_date, source_type, external_id,
                original_title, geofence_id, location_latitude, location_longitude, location_name,
                healthkit_sample_id, healthkit_category, properties, sync_status)
            VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, NULL, NULL, ?, ?, NULL, NULL, NULL, ?, 'synced')
            """
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        return try Measure.seconds {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw RawError.prepare }
            defer { sqlite3_finalize(statement) }
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            for (event, properties) in rows {
                sqlite3_bind_text(statement, 1, event.id, -1, transient)
                sqlite3_bind_text(statement, 2, event.eventTypeId, -1, transient)
                sqlite3_bind_int64(statement, 3, event.timestamp.millisecondsSince1970)
                if let notes = event.notes {
                    sqlite3_bind_text(statement, 4, notes, -1, transient)
                } else {
                    sqlite3_bind_null(statement, 4)
                }
                sqlite3_bind_int64(statement, 5, event.isAllDay ? 1 : 0)
                sqlite3_bind_text(statement, 6, event.sourceType.rawValue, -1, transient)
                if let latitude = event.locationLatitude, let longitude = event.locationLongitude {
                    sqlite3_bind_double(statement, 7, latitude)
                    sqlite3_bind_double(statement, 8, longitude)
                } else {
                    sqlite3_bind_null(statement, 7)
                    sqlite3_bind_null(statement, 8)
                }
                properties.withUnsafeBytes { bytes in
                    _ = sqlite3_bind_text(
                        statement, 9, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                        transient)
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw RawError.step }
                sqlite3_reset(statement)
            }
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
        }
    }

    enum RawError: Error {
        case open, prepare, step
    }
}
