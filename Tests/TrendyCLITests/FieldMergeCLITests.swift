import Foundation
import GRDB
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// Field-level merge (sync-engine R1–R3) through the built `trendyctl` against trendy-server: two devices editing different fields of one entity
/// keep both edits (sync-engine R1–R3), one field resolves last writer wins in the server's order, and
/// `sync --verify` proves a device equal to the server, repairing rows changed behind its back (R10).
extension NoEditLostTests {
    /// One of each entity on device `a`, synced to `b`: the names the edits below use.
    func sharedEntities(_ a: CLI, _ b: CLI) async throws -> (event: String, fence: String, size: String) {
        _ = try await a.json("types", "add", "Coffee", "--color", "#8B4513", "--icon", "cup")
        let size = try id(
            try await a.json("props", "add", "Coffee", "size", "--label", "Size", "--kind", "select", "--option", "s"))
        let event = try id(
            try await a.json("events", "add", "Coffee", "--at", "2026-11-20T07:30:00Z", "--notes", "first"))
        let fence = try id(try await a.json("geofences", "add", "Office", "--lat", "52.5", "--lon", "13.4"))
        #expect(try await a.json("sync")["outcome"] == "synced")
        #expect(try await b.json("sync")["outcome"] == "synced")
        return (event, fence, size)
    }

    @Test(
        "R1 R3 two devices edit different fields of every entity offline; in either order both edits stay everywhere",
        arguments: [true, false])
    func differentFields(aFirst: Bool) async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            let (event, fence, size) = try await sharedEntities(a, b)
            _ = try await a.json("types", "edit", "Coffee", "--color", "#000001")
            _ = try await b.json("types", "edit", "Coffee", "--icon", "mug")
            _ = try await a.json("events", "edit", event, "--notes", "notes from a", "--prop", "from_a=1")
            _ = try await b.json("events", "edit", event, "--at", "2026-11-20T08:00:00Z", "--prop", "from_b=2")
            _ = try await a.json("geofences", "edit", fence, "--radius", "300")
            _ = try await b.json("geofences", "edit", fence, "--name", "Office B")
            _ = try await a.json("props", "edit", size, "--label", "Cup size")
            _ = try await b.json("props", "edit", size, "--option", "s", "--option", "l")
            for cli in aFirst ? [a, b] : [b, a] { #expect(try await cli.json("sync")["outcome"] == "synced") }
            try await expectConverged(clis)

            for cli in clis {
                let type = try #require(try await cli.json("types", "show", "Coffee").objectValue)
                #expect(type["color"] == "#000001" && type["icon"] == "mug")
                let shown = try await cli.json("events", "show", event)
                #expect(shown["notes"] == "notes from a" && shown["timestamp"] == "2026-11-20T08:00:00.000Z")
                #expect(shown["properties"]?.objectValue?.keys.sorted() == ["from_a", "from_b"])
                let place = try await cli.json("geofences", "show", fence)
                #expect(place["radius"] == 300 && place["name"] == "Office B")
                let definition = try #require(try await cli.json("props", "list", "Coffee").arrayValue?.first)
                #expect(definition["label"] == "Cup size" && definition["options"] == ["s", "l"])
            }
        }
    }

    @Test("R1 the same field edited on two devices: the last write the server took wins, on every device")
    func sameField() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            let (event, _, _) = try await sharedEntities(a, b)
            _ = try await a.json("events", "edit", event, "--notes", "from a")
            _ = try await b.json("events", "edit", event, "--notes", "from b", "--prop", "mood=ok")
            _ = try await a.json("events", "edit", event, "--prop", "mood=great")
            #expect(try await a.json("sync")["outcome"] == "synced")
            #expect(try await b.json("sync")["outcome"] == "synced")
            try await expectConverged(clis)
            for cli in clis {
                let shown = try await cli.json("events", "show", event)
                #expect(shown["notes"] == "from b", "b's write reached the server last")
                #expect(shown["properties"]?["mood"]?["value"] == "ok", "one property key is one field")
            }
        }
    }

    @Test("R10 sync --verify: equal devices verify; rows changed behind trendyctl's back are read back")
    func verifyRepairs() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            let (event, fence, _) = try await sharedEntities(a, b)
            let clean = try await a.run("sync", "--verify", "--json")
            #expect(clean.status == 0 && clean.json?["verified"] == true && clean.json?["repaired"] == 0, "\(clean)")

            // What a user (or a bug) might do with sqlite3: change, remove and add rows, no mutation queued.
            let database = try DatabaseQueue(path: a.databasePath)
            try await database.write { db in
                try db.execute(sql: "UPDATE event SET notes = 'tampered' WHERE id = ?", arguments: [event])
                try db.execute(sql: "DELETE FROM geofence WHERE id = ?", arguments: [fence])
                try db.execute(
                    sql: """
                        INSERT INTO event_type (id, name, color, icon, created_at, sync_status)
                        SELECT '\(Build.id(4242))', 'Stray', color, icon, created_at, 'synced' FROM event_type LIMIT 1
                        """)
            }
            try database.close()
            let repaired = try await a.run("sync", "--verify", "--json")
            #expect(repaired.status == 0 && repaired.json?["verified"] == true, "\(repaired)")
            #expect(repaired.json?["repaired"] == 3 && repaired.json?["outcome"] == "synced")
            #expect(try await a.json("events", "show", event)["notes"] == "first")
            #expect(try await a.json("geofences", "show", fence)["name"] == "Office")
            #expect(try await a.json("types", "list").arrayValue?.count == 1)
            let history = try #require(try await a.json("history", "--limit", "1").arrayValue?.first)
            #expect(history["outcome"] == "verified", "\(history)")
            let human = try await a.run("sync", "--verify")
            #expect(human.status == 0 && human.stdout.contains("verified"), "\(human)")
        }
    }

    @Test("R4 R10 sync --verify after rows of every kind changed, removed and added behind trendyctl: each repaired")
    func verifyRepairsManyRows() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            let (_, fence, size) = try await sharedEntities(a, b)
            _ = try await a.json("types", "add", "Tea", "--icon", "leaf")
            let mood = try id(try await a.json("props", "add", "Tea", "mood", "--label", "Mood", "--kind", "text"))
            var added: [String] = []
            for minute in 10..<22 {
                let at = "2026-11-20T08:\(minute):00Z"
                added.append(try id(try await a.json("events", "add", "Coffee", "--at", at, "--notes", "n\(minute)")))
            }
            let events = added
            let other = try id(try await a.json("geofences", "add", "Home", "--lat", "48.1", "--lon", "11.5"))
            #expect(try await a.json("sync")["outcome"] == "synced")
            #expect(try await b.json("sync")["outcome"] == "synced")
            let before = try await contents(a)
            let definitions = try await a.json("props", "list", "Coffee")

            // More differences than one chunk of read-backs (R14: eight at a time), of every kind and every
            // answer: rows to rewrite (200), rows to remove (404), rows to restore.
            let database = try DatabaseQueue(path: a.databasePath)
            try await database.write { db in
                try db.execute(sql: "UPDATE event_type SET icon = 'tampered'")
                try db.execute(
                    sql: "UPDATE event SET notes = 'tampered' WHERE id IN (?, ?, ?, ?)",
                    arguments: [
                        events[0], events[1], events[2], events[3],
                    ])
                try db.execute(
                    sql: "DELETE FROM event WHERE id IN (?, ?, ?)", arguments: [events[4], events[5], events[6]])
                try db.execute(sql: "DELETE FROM property_definition WHERE id IN (?, ?)", arguments: [size, mood])
                try db.execute(sql: "UPDATE geofence SET name = 'tampered' WHERE id = ?", arguments: [fence])
                try db.execute(sql: "DELETE FROM geofence WHERE id = ?", arguments: [other])
                for (index, source) in events.prefix(2).enumerated() {
                    try db.execute(
                        sql: "CREATE TEMP TABLE copied AS SELECT * FROM event WHERE id = ?", arguments: [source])
                    try db.execute(sql: "UPDATE copied SET id = ?", arguments: [Build.id(4300 + index)])
                    try db.execute(sql: "INSERT INTO event SELECT * FROM copied")
                    try db.execute(sql: "DROP TABLE copied")
                }
            }
            try database.close()
            let repaired = try await a.run("sync", "--verify", "--json")
            #expect(repaired.status == 0 && repaired.json?["verified"] == true, "\(repaired)")
            #expect((repaired.json?["repaired"]?.intValue ?? 0) >= 12, "\(repaired)")
            #expect(try await contents(a) == before, "R4 each row is its entity's server copy again")
            #expect(try await a.json("props", "list", "Coffee") == definitions)
            #expect(try await a.json("props", "list", "Tea").arrayValue?.map { $0["id"] } == [.string(mood)])
            try await expectConverged(clis)
        }
    }

    @Test(
        "R10 sync --verify: a dead letter blocks it (exit 5, named); a cursor ahead of the server's history bootstraps"
    )
    func verifyBlockedAndBusy() async throws {
        try await devices { clis in
            let (a, b) = (clis[0], clis[1])
            _ = try await sharedEntities(a, b)
            _ = try await a.json("types", "add", "Tea")
            _ = try await a.json("sync")
            _ = try await b.json("sync")
            _ = try await a.json("types", "edit", "Coffee", "--name", "Drinks")
            _ = try await b.json("types", "edit", "Tea", "--name", "Drinks")
            _ = try await a.json("sync")
            let blocked = try await b.run("sync", "--verify", "--json")
            #expect(blocked.status == 5 && blocked.json?["verified"] == false, "\(blocked)")
            let blocker = try #require(blocked.json?["blocked_by"]?.arrayValue?.first)
            #expect(blocker["reason"] == "dead_letter" && blocker["entity_type"] == "event_type")
            #expect(blocked.stderr.contains("queue list"))

            let database = try DatabaseQueue(path: a.databasePath)
            try await database.write { db in try db.execute(sql: "UPDATE sync_engine_state SET cursor = cursor + 1000")
            }
            try database.close()
            // No change of the server carries that cursor (api-v1 §6.5): the round bootstraps, then the device verifies.
            let ahead = try await a.run("sync", "--verify", "--json")
            #expect(
                ahead.status == 0 && ahead.json?["verified"] == true && ahead.json?["bootstrapped"] == true, "\(ahead)")
        }
    }

    @Test("R10 sync --verify against the original backend: unsupported, exit 1; --verify with --watch is a usage error")
    func verifyUnsupported() async throws {
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.quirks = .original
        try await devices(1, on: configuration) { clis in
            let cli = clis[0]
            _ = try await cli.json("types", "add", "Coffee")
            let run = try await cli.run("sync", "--verify", "--json")
            #expect(run.status == 1 && run.json?["reason"] == "unsupported" && run.json?["verified"] == false, "\(run)")
            let usage = try await cli.run("sync", "--verify", "--watch")
            #expect(usage.status == 64 && usage.stderr.contains("--watch"))
        }
    }
}
