import Foundation
import GRDB
import Models
import Persistence
import Protocols
import TestSupport

/// R10 against random end states: once a seed has settled, one device that holds no queued work and owes nothing
/// has rows of every kind changed, removed or added behind its engine's back, as `sqlite3` would do it — several at
/// once, so that its `verify()` reads many entities back together (R14: eight at a time), each with its own answer
/// (200 with the server's copy, 404 for a row the server never had). It must repair exactly those rows, each under
/// its own id, and the device must equal the server field by field again.
struct Tampering {
    let device: String
    /// The ids changed, removed or added.
    let entities: [String]
    let what: [String]
}

extension ConvergenceRun {
    /// Tampers with up to a dozen rows of one settled device (chosen by the seed, apart from the run's own draws);
    /// nil when no device is settled or none holds an entity.
    func tamper(_ locals: [(ProofClient, Entities, [PendingMutation])]) throws -> Tampering? {
        var random = SeededRandom(seed: settings.seed &* 0x9E37_79B9_7F4A_7C15 &+ 25)
        var settled: [(ProofClient, Entities)] = []
        for (client, local, queue) in locals where queue.isEmpty && !local.allIds.isEmpty {
            if try client.stores.makeDataStore().owedEntities().isEmpty { settled.append((client, local)) }
        }
        guard let (client, local) = random.pick(settled) else { return nil }
        // Each row is tampered with at most once: its answer must land on it alone.
        var untouched = Set(local.allIds)
        func some(_ ids: some Collection<String>, atMost count: Int) -> [String] {
            let candidates = ids.filter(untouched.contains).sorted()
            let chosen = Array(candidates.shuffled(using: &random).prefix(Int.random(in: 0...count, using: &random)))
            untouched.subtract(chosen)
            return chosen
        }
        // A field changed: one text column of each table that every row holds.
        let changes: [(table: String, column: String, ids: [String])] = [
            ("event", "notes", some(local.events.keys, atMost: 3)),
            ("event_type", "color", some(local.types.keys, atMost: 2)),
            ("geofence", "name", some(local.geofences.keys, atMost: 2)),
            ("property_definition", "label", some(local.definitions.keys, atMost: 2)),
        ]
        // Leaf rows removed (a type or a geofence would take its children with it).
        let removals: [(table: String, ids: [String])] = [
            ("event", some(local.events.keys, atMost: 3)),
            ("property_definition", some(local.definitions.keys, atMost: 2)),
        ]
        // Events added that the server never had: copies of some under new ids.
        let sources = some(local.events.keys, atMost: 2)
        let copies = sources.map { (source: $0, id: UUIDv7.generate(at: clock.now())) }

        var entities: [String] = []
        var what: [String] = []
        let database = try DatabaseQueue(path: client.path)
        defer { try? database.close() }
        try database.write { db in
            for change in changes {
                for id in change.ids {
                    try db.execute(
                        sql: "UPDATE \(change.table) SET \(change.column) = 'tampered' WHERE id = ?", arguments: [id])
                    entities.append(id)
                    what.append("\(change.table).\(change.column) of \(id) changed")
                }
            }
            for removal in removals {
                for id in removal.ids {
                    try db.execute(sql: "DELETE FROM \(removal.table) WHERE id = ?", arguments: [id])
                    entities.append(id)
                    what.append("\(removal.table) \(id) removed")
                }
            }
            for copy in copies {
                try db.execute(
                    sql: "CREATE TEMP TABLE copied AS SELECT * FROM event WHERE id = ?", arguments: [copy.source])
                try db.execute(sql: "UPDATE copied SET id = ?", arguments: [copy.id])
                try db.execute(sql: "INSERT INTO event SELECT * FROM copied")
                try db.execute(sql: "DROP TABLE copied")
                entities.append(copy.id)
                what.append("event \(copy.id) added (a copy of \(copy.source))")
            }
        }
        guard !entities.isEmpty else { return nil }
        return Tampering(device: client.name, entities: entities, what: what)
    }
}
