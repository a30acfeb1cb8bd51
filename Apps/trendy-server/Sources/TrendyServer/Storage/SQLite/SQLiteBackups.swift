import Foundation
import GRDB
import Models
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `trendy-server backup`, `restore` and `mark-restored` on the SQLite file (api-v1 §15, docs/server.md "Backups
/// and restores").
///
/// - A backup is `VACUUM INTO` a file beside the output, marked with the time it was taken and a history that
///   begins when a server first serves it, then renamed into place: the output is the old backup or the new one,
///   never half of one, and the database keeps serving meanwhile (SQLite reads one snapshot).
/// - A restore needs the server stopped (`ServingLock`): it readies a copy of the backup beside the database, keeps
///   the replaced database as `<db>.before-restore`, and renames the copy into place.
public enum SQLiteBackups {
    /// What `backUp` made.
    public struct Backup: Sendable {
        public let path: String
        /// The instant the copy's snapshot was at least as new as.
        public let takenAt: Date
        public let bytes: Int64
    }

    /// What `restore` did.
    public struct Restore: Sendable {
        /// The history the database serves from now on.
        public let history: ServerHistory
        /// Where the replaced database went, if there was one.
        public let keptAt: String?
    }

    /// Copies the database at `source` into `output`, consistent while a server writes to it.
    public static func backUp(database source: String, to output: String, now: () -> Date) throws -> Backup {
        try requireDatabase(source, role: "--db")
        let partial = output + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        let takenAt = now()
        do {
            let queue = try openForReading(source)
            try queue.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [partial]) }
            try queue.close()
            let copy = try DatabaseQueue(path: partial, configuration: configuration(readOnly: false))
            try migrate(copy, location: source)
            try copy.write { db in
                try ServerHistories.markBackup(SQLiteTransaction(db), takenAt: takenAt.millisecondsSince1970)
            }
            try copy.close()
            try replace(output, with: partial)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output))?[.size] as? Int
        return Backup(path: output, takenAt: takenAt, bytes: Int64(size ?? 0))
    }

    /// Puts the backup at `backup` in place of the database at `path`, which no server may be serving.
    public static func restore(database path: String, from backup: String, now: () -> Date) throws -> Restore {
        try requireDatabase(backup, role: "the backup")
        let lock = try ServingLock(database: path, exclusive: true)
        defer { lock.release() }
        let ready = path + ".restoring"
        try? FileManager.default.removeItem(atPath: ready)
        let history: ServerHistory
        do {
            try FileManager.default.copyItem(atPath: backup, toPath: ready)
            let copy = try DatabaseQueue(path: ready, configuration: configuration(readOnly: false))
            // One file: the server turns WAL on again when it opens it.
            try copy.inDatabase { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try migrate(copy, location: backup)
            history = try copy.write { db in
                try ServerHistories.markRestored(
                    SQLiteTransaction(db), backupTakenAt: nil, now: now().millisecondsSince1970)
            }
            try copy.close()
        } catch {
            try? FileManager.default.removeItem(atPath: ready)
            throw error
        }
        var keptAt: String?
        if FileManager.default.fileExists(atPath: path) {
            keptAt = try keepReplaced(path)
        }
        try replace(path, with: ready)
        return Restore(history: history, keptAt: keptAt)
    }

    /// Starts a new history on the database at `path`, which no server may be serving: for a file put back by hand.
    public static func markRestored(
        database path: String, backupTakenAt: Date?, now: () -> Date
    ) throws
        -> ServerHistory
    {
        try requireDatabase(path, role: "--db")
        let lock = try ServingLock(database: path, exclusive: true)
        defer { lock.release() }
        let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false))
        defer { try? queue.close() }
        try migrate(queue, location: path)
        return try queue.write { db in
            try ServerHistories.markRestored(
                SQLiteTransaction(db), backupTakenAt: backupTakenAt?.millisecondsSince1970,
                now: now().millisecondsSince1970)
        }
    }

    // MARK: - Steps

    private static func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        configuration.label = "trendy-server maintenance"
        return configuration
    }

    /// Read-only when SQLite allows it (a backup on a read-only disk); a WAL database whose `-shm` is missing opens
    /// only read-write, and is then only read.
    private static func openForReading(_ path: String) throws -> DatabaseQueue {
        if let queue = try? DatabaseQueue(path: path, configuration: configuration(readOnly: true)) { return queue }
        return try DatabaseQueue(path: path, configuration: configuration(readOnly: false))
    }

    /// The file exists and is a trendy-server database that SQLite finds whole.
    private static func requireDatabase(_ path: String, role: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw BackupRefused.missing(path, role: role)
        }
        do {
            let queue = try openForReading(path)
            defer { try? queue.close() }
            try queue.read { db in
                guard try db.tableExists("grdb_migrations"), try db.tableExists("changes") else {
                    throw BackupRefused.notServerDatabase(path)
                }
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if check != ["ok"] { throw BackupRefused.damaged(path, check.prefix(3).joined(separator: "; ")) }
            }
        } catch let error as BackupRefused {
            throw error
        } catch {
            throw BackupRefused.damaged(path, (error as? DatabaseError)?.message ?? "\(error)")
        }
    }

    /// Brings a copy to this server's schema; a copy written by a newer server is refused.
    private static func migrate(_ queue: DatabaseQueue, location: String) throws {
        let migrator = SQLiteSchema.migrator
        let unknown = try queue.read { db in try migrator.appliedIdentifiers(db).subtracting(migrator.migrations) }
        if !unknown.isEmpty { throw DatabaseTooNew(location: location, unknownMigrations: unknown.sorted()) }
        try migrator.migrate(queue)
    }

    /// Folds the replaced database's WAL into it (when it still opens) and keeps it, with whatever WAL is left, as
    /// `<path>.before-restore`.
    private static func keepReplaced(_ path: String) throws -> String {
        if let queue = try? DatabaseQueue(path: path, configuration: configuration(readOnly: false)) {
            _ = try? queue.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try? queue.close()
        }
        let kept = path + ".before-restore"
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: kept + suffix) }
        // A hard link: the database stays at `path` until the rename replaces it, so no instant lacks one.
        if link(path, kept) != 0 { try files.copyItem(atPath: path, toPath: kept) }
        // A WAL left beside the new file would be read as the new file's: it goes with the old one.
        if files.fileExists(atPath: path + "-wal") { try files.moveItem(atPath: path + "-wal", toPath: kept + "-wal") }
        try? files.removeItem(atPath: path + "-shm")
        return kept
    }

    /// `rename(2)`: atomic, so `path` is the old file or the new one.
    private static func replace(_ path: String, with ready: String) throws {
        if rename(ready, path) != 0 {
            throw BackupRefused.cannotWrite(path, String(cString: strerror(errno)))
        }
    }
}

/// Why a backup, restore or mark-restored did nothing.
public enum BackupRefused: Error, CustomStringConvertible {
    case missing(String, role: String)
    case notServerDatabase(String)
    case damaged(String, String)
    case serving(String)
    case restoring(String)
    case cannotWrite(String, String)
    case notSQLite(String)

    public var description: String {
        switch self {
        case .missing(let path, let role): "\(role) \(path) does not exist"
        case .notServerDatabase(let path):
            "\(path) is not a trendy-server database (no change log in it); name the server's file or a backup of it"
        case .damaged(let path, let reason):
            "\(path) is damaged (SQLite: \(reason)); nothing was changed: use another backup"
        case .serving(let path):
            "a trendy-server is serving \(path); stop it first (a restore under a running server would lose what it "
                + "writes), then run the command again"
        case .restoring(let path):
            "a trendy-server restore or mark-restored is changing \(path); start the server once it has finished"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason); nothing was replaced"
        case .notSQLite(let what):
            "\(what) works on the SQLite database (--db); for PostgreSQL use pg_dump and pg_restore, then "
                + "trendy-server mark-restored --postgres URL (docs/server.md, \"Backups and restores\")"
        }
    }
}

/// An advisory lock on `<db>.lock` that a serving trendy-server holds shared for its whole life, and a restore or
/// mark-restored exclusively: so a restore never replaces a file under a running server.
///
/// A separate file, not the database: closing any descriptor of the database would drop SQLite's own POSIX locks
/// in this process.
final class ServingLock: Sendable {
    /// The open lock file until `release`.
    private let descriptor: Mutex<Int32?>

    init(database path: String, exclusive: Bool) throws {
        let lockPath = path + ".lock"
        let opened = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw BackupRefused.cannotWrite(lockPath, String(cString: strerror(errno)))
        }
        if flock(opened, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            close(opened)
            throw exclusive ? BackupRefused.serving(path) : BackupRefused.restoring(path)
        }
        descriptor = Mutex(opened)
    }

    /// Gives the lock up (once); a process that ends gives it up too.
    func release() {
        descriptor.withLock { held in
            if let descriptor = held { close(descriptor) }
            held = nil
        }
    }

    deinit { release() }
}
