import Foundation
import GRDB
import Models
import Protocols

/// The bootstrap's staging area: a TEMP table with the `event` table's columns, on the writer connection, so it
/// lives on disk (not in memory), follows the event table's columns by construction, belongs to this process alone
/// (a second process bootstrapping has its own) and disappears with the connection. DDL and rows roll back with
/// the unit of work.
extension LocalStore {
    private static let stagedColumns = Event.columns.joined(separator: ", ")

    private static let createStage = """
        CREATE TEMP TABLE IF NOT EXISTS staged_event (\(stagedColumns), PRIMARY KEY (id)) WITHOUT ROWID
        """
    private static let stageRow = """
        INSERT OR IGNORE INTO temp.staged_event (\(stagedColumns))
        VALUES (\(Array(repeating: "?", count: Event.columns.count).joined(separator: ", ")))
        """

    public func clearStagedEvents() throws {
        try perform { db in
            try db.execute(sql: Self.createStage)
            try db.execute(sql: "DELETE FROM temp.staged_event")
        }
    }

    @discardableResult
    public func stageEvents(_ events: [Event]) throws -> Int {
        try perform { db in
            try db.execute(sql: Self.createStage)
            let before = db.totalChangesCount
            let statement = try db.cachedStatement(sql: Self.stageRow)
            for event in events {
                var row = RawStatement(statement)
                event.bind(to: &row)
                try row.execute()
            }
            return db.totalChangesCount - before
        }
    }

    public func insertStagedEvents(excluding excluded: Set<String>) throws -> StagedInsert {
        try perform { db in
            try db.execute(sql: Self.createStage)
            let updates = Event.columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            // The excluded ids travel as one JSON array; rows go in id order, so the table's B-tree grows by appending.
            try db.execute(
                sql: """
                    INSERT INTO event (\(Self.stagedColumns))
                    SELECT \(Self.stagedColumns) FROM temp.staged_event
                    WHERE id NOT IN (SELECT value FROM json_each(?)) ORDER BY id
                    ON CONFLICT(id) DO UPDATE SET \(updates)
                    """, arguments: [JSONColumn.text(excluded.sorted())])
            let inserted = db.changesCount
            var held: [String: Event] = [:]
            let find = try db.cachedStatement(sql: "SELECT \(Self.stagedColumns) FROM temp.staged_event WHERE id = ?")
            for id in excluded {
                var statement = RawStatement(find)
                statement.bind(id)
                defer { statement.reset() }
                if try statement.step() { held[id] = Event(statement) }
            }
            return StagedInsert(inserted: inserted, excluded: held)
        }
    }
}
