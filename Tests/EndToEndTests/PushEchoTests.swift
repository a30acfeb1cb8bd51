import Foundation
import GRDB
import Models
import Sync
import Testing

/// The pull that follows a push brings the pushed rows back from the change feed; a device that still holds them
/// unchanged must not write them again (a push of 10 000 must not rewrite 10 000 rows).
@Suite("End to end: the pull after a push")
struct PushEchoTests {
    @Test("rewrites none of the rows this device just pushed and still holds unchanged")
    func pushedRowsAreNotRewritten() async throws {
        try await EndToEnd.with { world in
            let device = try world.device("a")
            let type = try await device.events.createEventType(name: "Walk")
            #expect(await device.sync().outcome.name == "synced")
            let start = Date(timeIntervalSince1970: 1_700_000_000.123)
            for index in 0..<20 {
                try await device.events.createEvent(eventTypeId: type.id, timestamp: start + Double(index) * 61.5) {
                    $0.notes = index.isMultiple(of: 2) ? "note \(index)" : nil
                    if index.isMultiple(of: 3) {
                        $0.locationLatitude = 52.520_008
                        $0.locationLongitude = 13.404_954
                        $0.locationName = "Berlin"
                    }
                    if index.isMultiple(of: 4) {
                        $0.isAllDay = true
                        $0.endDate = start + Double(index) * 61.5 + 3_600.25
                        $0.properties = ["mood": PropertyValue(type: .text, value: "good")]
                    }
                }
            }
            let writes = try EventWriteLog(database: world.directory.appendingPathComponent("a.sqlite").path)

            let report = await device.sync()

            #expect(report.outcome.name == "synced")
            #expect(report.pushed == 20)
            #expect(report.pulled >= 20, "the change feed brought the pushed events back")
            let logged = try writes.entries()
            #expect(logged.count == 20, "one write per event: marking it synced")
            #expect(logged.allSatisfy { $0.before == "pending" && $0.after == "synced" })
            #expect(try device.events.events().allSatisfy { $0.syncStatus == .synced })
        }
    }

    @Test("still writes a pushed row the server answered differently")
    func changedRowsAreWritten() async throws {
        try await EndToEnd.with { world in
            let (a, b, event) = try await world.twoDevicesSharingAnEvent("Walk")
            try await b.events.updateEvent(id: event.id) { $0.notes = "edited on b" }
            #expect(await b.sync().outcome.name == "synced")
            let writes = try EventWriteLog(database: world.directory.appendingPathComponent("a.sqlite").path)

            #expect(await a.sync().outcome.name == "synced")

            #expect(try writes.entries().map(\.after) == ["synced"])
            #expect(try a.events.events().map(\.notes) == ["edited on b"])
        }
    }
}

/// Every UPDATE of the `event` table of a device's database from now on, with the row's sync status before and
/// after, recorded by a trigger in that file (each write of the store is one UPDATE).
private struct EventWriteLog {
    let queue: DatabaseQueue

    init(database path: String) throws {
        queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE test_event_writes (id TEXT, before TEXT, after TEXT);
                    CREATE TRIGGER test_event_written AFTER UPDATE ON event
                    BEGIN INSERT INTO test_event_writes VALUES (new.id, old.sync_status, new.sync_status); END;
                    """)
        }
    }

    func entries() throws -> [(id: String, before: String, after: String)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, before, after FROM test_event_writes").map {
                (id: $0["id"], before: $0["before"], after: $0["after"])
            }
        }
    }
}
