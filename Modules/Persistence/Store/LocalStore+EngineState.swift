import Foundation
import GRDB
import Models
import Protocols

// MARK: - DS8–DS11: engine state and history

extension LocalStore {
    public func loadEngineState() throws -> EngineState {
        try perform { db in
            try Row.fetchOne(db.cachedStatement(sql: EngineRows.loadStateSQL)).map(EngineRows.decodeState)
                ?? EngineState()
        }
    }

    public func saveEngineState(_ state: EngineState) throws {
        try perform { db in
            try db.cachedStatement(sql: EngineRows.saveStateSQL).execute(
                arguments: StatementArguments(EngineRows.stateValues(state)))
        }
    }

    public func appendSyncHistory(_ entry: SyncHistoryEntry, keepLast: Int) throws {
        try perform { db in
            try db.execute(
                sql: EngineRows.historyInsert,
                arguments: StatementArguments(EngineRows.historyValues(entry)))
            try db.execute(
                sql: """
                    DELETE FROM sync_history WHERE id NOT IN (
                        SELECT id FROM sync_history ORDER BY started_at DESC, id DESC LIMIT ?)
                    """,
                arguments: [max(0, keepLast)])
        }
    }

    public func fetchSyncHistory(limit: Int) throws -> [SyncHistoryEntry] {
        try perform { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(EngineRows.historyColumns) FROM sync_history ORDER BY started_at DESC, id DESC LIMIT ?",
                arguments: [max(0, limit)]
            ).map(EngineRows.decodeHistory)
        }
    }
}

// MARK: - Q1–Q3: application queries

extension LocalStore {
    public func fetchEvents(matching query: EventQuery) throws -> [Event] {
        // Only the filters given are in the SQL, so SQLite can use an index for them ("?1 IS NULL OR …" would make it
        // scan every event). At most 128 shapes, each a cached statement.
        var conditions: [String] = []
        if query.eventTypeId != nil { conditions.append("event_type_id = ?") }
        if query.since != nil { conditions.append("timestamp >= ?") }
        if query.until != nil { conditions.append("timestamp <= ?") }
        if query.syncStatus != nil { conditions.append("sync_status = ?") }
        if query.geofenceId != nil { conditions.append("geofence_id = ?") }
        // The keyset bound is a range on `timestamp` (an index's), then the id among equal times.
        let (compare, direction) = query.oldestFirst ? (">", "ASC") : ("<", "DESC")
        if query.after != nil {
            conditions.append("timestamp \(compare)= ? AND (timestamp \(compare) ? OR id \(compare) ?)")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let sql = Event.statements.select + filter + " ORDER BY timestamp \(direction), id \(direction) LIMIT ?"
        return try perform { db in
            try Self.fetchAll(Event.self, sql: sql, in: db) { statement in
                if let eventTypeId = query.eventTypeId { statement.bind(eventTypeId) }
                if let since = query.since { statement.bind(since) }
                if let until = query.until { statement.bind(until) }
                if let status = query.syncStatus { statement.bind(status.rawValue) }
                if let geofenceId = query.geofenceId { statement.bind(geofenceId) }
                if let after = query.after {
                    statement.bind(after.timestamp)
                    statement.bind(after.timestamp)
                    statement.bind(after.id)
                }
                statement.bind(Int64(query.limit.map { max(0, $0) } ?? -1))
            }
        }
    }

    public func liveMutationRevisions() throws -> [String: Int] {
        try perform { db in
            var revisions: [String: Int] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT id, revision FROM pending_mutations WHERE state = ?"),
                arguments: [MutationState.pending.rawValue])
            while let row = try rows.next() {
                revisions[try row.decode(String.self, atIndex: 0)] = try row.decode(Int.self, atIndex: 1)
            }
            return revisions
        }
    }

    public func countMutations() throws -> MutationCounts {
        try perform { db in
            let rows = try Row.fetchAll(db, sql: "SELECT state, COUNT(*) FROM pending_mutations GROUP BY state")
            var counts = MutationCounts(pending: 0, failed: 0)
            for row in rows {
                let count = try row.decode(Int.self, atIndex: 1)
                switch try row.decode(String.self, atIndex: 0) {
                case MutationState.failed.rawValue: counts.failed += count
                default: counts.pending += count
                }
            }
            return counts
        }
    }

    public func fetchMutations(entityId: String?) throws -> [PendingMutation] {
        try perform { db in
            guard let entityId else {
                return try Row.fetchAll(db.cachedStatement(sql: "\(MutationRow.select) \(MutationRow.queueOrder)"))
                    .map(MutationRow.decode)
            }
            return try Row.fetchAll(
                db.cachedStatement(sql: "\(MutationRow.select) WHERE entity_id = ? \(MutationRow.queueOrder)"),
                arguments: [entityId]
            ).map(MutationRow.decode)
        }
    }
}
