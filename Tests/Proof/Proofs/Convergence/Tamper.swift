import Foundation
import GRDB
import Models
import Persistence
import Protocols
import TestSupport

/// R10 against random end states (issue 25): once a seed has settled, one device that holds no queued work and owes
/// nothing has a row changed, removed or added behind its engine's back, as `sqlite3` would do it. Its `verify()`
/// must then find exactly that entity and repair it, and the device must equal the server field by field again.
struct Tampering {
    let device: String
    let entity: String
    let what: String
}

extension ConvergenceRun {
    /// Tampers with one entity of one settled device (chosen by the seed, apart from the run's own draws); nil when
    /// no device is settled or none holds an entity.
    func tamper(_ locals: [(ProofClient, Entities, [PendingMutation])]) throws -> Tampering? {
        var random = SeededRandom(seed: settings.seed &* 0x9E37_79B9_7F4A_7C15 &+ 25)
        var settled: [(ProofClient, Entities)] = []
        for (client, local, queue) in locals where queue.isEmpty && !local.allIds.isEmpty {
            if try client.stores.makeDataStore().owedEntities().isEmpty { settled.append((client, local)) }
        }
        guard let (client, local) = random.pick(settled) else { return nil }
        let database = try DatabaseQueue(path: client.path)
        defer { try? database.close() }
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            // A field changed: one text column of each table that every row holds.
            let rows: [(String, String, String)] =
                local.events.keys.map { ("event", "notes", $0) } + local.types.keys.map { ("event_type", "color", $0) }
                + local.geofences.keys.map { ("geofence", "name", $0) }
                + local.definitions.keys.map { ("property_definition", "label", $0) }
            guard let (table, column, id) = random.pick(rows.sorted { $0.2 < $1.2 }) else { return nil }
            try database.write { db in
                try db.execute(sql: "UPDATE \(table) SET \(column) = 'tampered' WHERE id = ?", arguments: [id])
            }
            return Tampering(device: client.name, entity: id, what: "\(table).\(column) of \(id) changed")
        case 1:
            // A leaf row removed (a type or a geofence would take its children with it).
            let rows =
                local.events.keys.map { ("event", $0) } + local.definitions.keys.map { ("property_definition", $0) }
            guard let (table, id) = random.pick(rows.sorted { $0.1 < $1.1 }) else { return nil }
            try database.write { db in try db.execute(sql: "DELETE FROM \(table) WHERE id = ?", arguments: [id]) }
            return Tampering(device: client.name, entity: id, what: "\(table) \(id) removed")
        default:
            // An event added that the server never had: a copy of one under a new id.
            guard let source = random.pick(local.events.keys.sorted()) else { return nil }
            let id = UUIDv7.generate(at: clock.now())
            try database.write { db in
                try db.execute(sql: "CREATE TEMP TABLE copied AS SELECT * FROM event WHERE id = ?", arguments: [source])
                try db.execute(sql: "UPDATE copied SET id = ?", arguments: [id])
                try db.execute(sql: "INSERT INTO event SELECT * FROM copied")
                try db.execute(sql: "DROP TABLE copied")
            }
            return Tampering(device: client.name, entity: id, what: "event \(id) added (a copy of \(source))")
        }
    }
}
