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
                sql:
                    "INSERT INTO sync_history (\(EngineRows.historyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        // Every filter is always in the SQL (a nil one matches everything), so one cached statement serves all.
        let sql =
            Event.statements.select + " WHERE (?1 IS NULL OR event_type_id = ?1)"
            + " AND (?2 IS NULL OR timestamp >= ?2) AND (?3 IS NULL OR timestamp <= ?3)"
            + " AND (?4 IS NULL OR sync_status = ?4) ORDER BY timestamp DESC, id DESC LIMIT ?5"
        return try perform { db in
            try Self.fetchAll(Event.self, sql: sql, in: db) { statement in
                statement.bind(query.eventTypeId)
                statement.bind(query.since)
                statement.bind(query.until)
                statement.bind(query.syncStatus?.rawValue)
                statement.bind(Int64(query.limit.map { max(0, $0) } ?? -1))
            }
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

    public func fetchMutations(entityId: String) throws -> [PendingMutation] {
        try perform { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "\(MutationRow.select) WHERE entity_id = ? \(MutationRow.queueOrder)"),
                arguments: [entityId]
            ).map(MutationRow.decode)
        }
    }
}
