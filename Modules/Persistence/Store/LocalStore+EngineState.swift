import Foundation
import GRDB
import Models
import Protocols

// MARK: - DS8–DS11: engine state and history

extension LocalStore {
    public func loadEngineState() throws -> EngineState {
        try perform { db in
            try Row.fetchOne(db, sql: "SELECT \(EngineRows.stateColumns) FROM sync_engine_state WHERE id = 1")
                .map(EngineRows.decodeState) ?? EngineState()
        }
    }

    public func saveEngineState(_ state: EngineState) throws {
        try perform { db in
            let columns = EngineRows.stateColumns.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let updates = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            try db.execute(
                sql: """
                    INSERT INTO sync_engine_state (id, \(EngineRows.stateColumns))
                    VALUES (1, \(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                    ON CONFLICT(id) DO UPDATE SET \(updates)
                    """,
                arguments: StatementArguments(try EngineRows.stateValues(state)))
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
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let typeId = query.eventTypeId {
            conditions.append("event_type_id = ?")
            arguments.append(typeId)
        }
        if let since = query.since {
            conditions.append("timestamp >= ?")
            arguments.append(since.millisecondsSince1970)
        }
        if let until = query.until {
            conditions.append("timestamp <= ?")
            arguments.append(until.millisecondsSince1970)
        }
        if let status = query.syncStatus {
            conditions.append("sync_status = ?")
            arguments.append(status.rawValue)
        }
        var sql = Event.selectSQL
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY timestamp DESC, id DESC"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments.append(max(0, limit))
        }
        return try perform { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map(Event.init(row:))
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
