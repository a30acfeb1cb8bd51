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
        CREATE TEMP TABLE IF NOT EXISTS staged_event (\(stagedColumns), seq INTEGER PRIMARY KEY, UNIQUE (id))
        """
    private static let stageRow = """
        INSERT OR IGNORE INTO temp.staged_event (\(stagedColumns))
        VALUES (\(Array(repeating: "?", count: Event.columns.count).joined(separator: ", ")))
        """
    private static let stagedPage = """
        SELECT \(stagedColumns), seq FROM temp.staged_event WHERE seq > ? ORDER BY seq LIMIT ?
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

    public func forEachStagedEvent(pageSize: Int, _ body: (Event) throws -> Void) throws {
        var position: Int64 = 0
        while true {
            // A page is read whole before `body` runs, so its writes never interleave with this statement's steps.
            let page = try stagedEvents(after: position, limit: pageSize)
            for event in page.events { try body(event) }
            guard let last = page.last, page.events.count >= max(1, pageSize) else { return }
            position = last
        }
    }

    /// Up to `limit` staged events after the arrival number `position` (0: from the first), and the arrival number
    /// of the last one returned (nil when none): `forEachStagedEvent` a page at a time, for wrappers that must not
    /// hold a lock while the caller's body runs (`MockDataStore`).
    public func stagedEvents(after position: Int64, limit: Int) throws -> (events: [Event], last: Int64?) {
        try perform { db in
            try db.execute(sql: Self.createStage)
            var statement = RawStatement(try db.cachedStatement(sql: Self.stagedPage))
            statement.bind(position)
            statement.bind(max(1, limit))
            var rows: [Event] = []
            var last: Int64?
            while try statement.step() {
                rows.append(Event(statement))
                last = statement.int64(Int32(Event.columns.count))
            }
            return (rows, last)
        }
    }
}
