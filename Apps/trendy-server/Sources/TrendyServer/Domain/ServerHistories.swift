import Foundation
import Models

/// The histories of one database (api-v1 §15), in the table `server_histories`: one row a history, the last one
/// the history served now.
///
/// A row whose `started_at` is NULL is a history that begins the first time a server serves the database: what
/// `trendy-server backup` writes into its copy, so that the copy starts a new history however it is put in place —
/// with `trendy-server restore` or by hand, and every time it is put in place. A database's first history is written by its migration, so instances
/// that start together on a new PostgreSQL database agree on it.
enum ServerHistories {
    /// The first history of a database (run by the migration that creates the table).
    static func begin(_ db: any StorageTransaction, now: Int64) throws {
        try insert(db, backupTakenAt: nil, startedAt: now)
    }

    /// The history to announce: a history left waiting by `backup` starts now, under an id drawn as it starts;
    /// otherwise the latest one. The id is not the one the backup wrote: one backup put back twice starts two
    /// histories, and a device that met the first must see the second as new, or it would give back nothing.
    static func serve(_ db: any StorageTransaction, now: Int64) throws -> ServerHistory {
        let waiting = try db.values(Int64.self, sql: "SELECT position FROM server_histories WHERE started_at IS NULL")
        for position in waiting {
            try db.execute(
                sql: "UPDATE server_histories SET started_at = ?, id = ? WHERE position = ?",
                arguments: [now, UUIDv7.generate(at: Date(millisecondsSince1970: now)), position])
        }
        return try current(db)
    }

    /// Marks a copy made by `backup`: the history it will serve begins when a server first opens it.
    static func markBackup(_ db: any StorageTransaction, takenAt: Int64) throws {
        try insert(db, backupTakenAt: takenAt, startedAt: nil)
    }

    /// After a restore that left no mark (`mark-restored`, or `restore` of a file `backup` did not write): a new
    /// history begins now. A waiting one (a copy made by `backup`) starts instead, keeping its backup time unless
    /// `backupTakenAt` is given.
    static func markRestored(_ db: any StorageTransaction, backupTakenAt: Int64?, now: Int64) throws -> ServerHistory {
        let waiting = try db.value(
            Int64.self, sql: "SELECT position FROM server_histories WHERE started_at IS NULL ORDER BY position DESC")
        if let waiting {
            if let backupTakenAt {
                try db.execute(
                    sql: "UPDATE server_histories SET backup_taken_at = ? WHERE position = ?",
                    arguments: [backupTakenAt, waiting])
            }
        } else {
            try insert(db, backupTakenAt: backupTakenAt, startedAt: now)
        }
        return try serve(db, now: now)
    }

    /// The latest history.
    static func current(_ db: any StorageTransaction) throws -> ServerHistory {
        var history: ServerHistory?
        try db.forEachRow(
            "SELECT id, backup_taken_at FROM server_histories ORDER BY position DESC LIMIT 1", []
        ) { row in
            let id = try row.decode(String.self, atIndex: 0)
            let backup = row.isNull(1) ? nil : Date(millisecondsSince1970: row.int64(1))
            history = ServerHistory(id: id, backupTakenAt: backup)
            return false
        }
        guard let history else { throw ServerHistoryMissing() }
        return history
    }

    private static func insert(_ db: any StorageTransaction, backupTakenAt: Int64?, startedAt: Int64?) throws {
        let next = try db.value(Int64.self, sql: "SELECT COALESCE(MAX(position), 0) + 1 FROM server_histories") ?? 1
        try db.execute(
            sql: "INSERT INTO server_histories (position, id, backup_taken_at, started_at) VALUES (?, ?, ?, ?)",
            arguments: [
                next, UUIDv7.generate(at: Date(millisecondsSince1970: startedAt ?? backupTakenAt ?? 0)), backupTakenAt,
                startedAt,
            ])
    }
}

/// The table of histories is empty: the database was edited by hand.
struct ServerHistoryMissing: Error, CustomStringConvertible {
    var description: String {
        "the database has no row in server_histories (edited by hand?); run trendy-server mark-restored on it"
    }
}
