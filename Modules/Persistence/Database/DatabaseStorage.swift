import Foundation
import GRDB
import Models
import Protocols

/// An opened, validated and migrated Trendy database: the shared resource behind every `LocalStore`.
///
/// A file opens as a GRDB `DatabasePool` (WAL, so readers never block the writer, 5 s busy timeout); the
/// in-memory variant is a `DatabaseQueue` on a private in-memory database. Opening refuses a file that is not
/// SQLite, and a database migrated by a newer version, before writing anything.
public final class DatabaseStorage: Sendable {
    /// Where the database lives.
    public enum Location: Sendable, Hashable {
        /// The SQLite file at `path`, created with its folders (0700, the file 0600) when missing.
        case file(path: String)
        /// A private database in memory, gone when the storage is released: for tests and previews.
        case inMemory
    }

    /// Where this database was opened.
    public let location: Location
    let writer: any DatabaseWriter
    let lease: UnitOfWorkLease
    /// Time for placeholder rows (sync-engine §2.4); the engine passes its own times explicitly.
    let clock: any SyncClock
    /// Observations to ring after each commit (R13).
    let commitListeners = CommitListeners()

    private init(location: Location, writer: any DatabaseWriter, busyTimeout: TimeInterval, clock: any SyncClock) {
        self.location = location
        self.writer = writer
        self.lease = UnitOfWorkLease(timeout: busyTimeout)
        self.clock = clock
    }

    /// Opens (creating it and its folder if needed) and migrates the database at `location`.
    public static func open(
        _ location: Location, clock: any SyncClock = SystemClock(), busyTimeout: TimeInterval = 5
    ) throws -> DatabaseStorage {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        // A unit of work spans several synchronous store calls; `LocalStore` guarantees it always ends.
        configuration.allowsUnsafeTransactions = true
        configuration.label = "trendy"
        let writer: any DatabaseWriter
        switch location {
        case .inMemory:
            writer = try mapErrors(path: ":memory:") {
                let queue = try DatabaseQueue(configuration: configuration)
                try migrate(queue, path: ":memory:")
                return queue
            }
        case .file(let path):
            try prepareFile(at: path)
            writer = try mapErrors(path: path) {
                try openMigratedPool(path: path, configuration: configuration, patience: busyTimeout)
            }
        }
        return DatabaseStorage(location: location, writer: writer, busyTimeout: busyTimeout, clock: clock)
    }

    /// Opens the file as a pool and migrates it. Processes that open a new file at once (a watcher starting beside
    /// a command) race: each migration runs in a transaction of its own after a look at what is applied, so two
    /// connections can both find a migration missing and the second to run it fails ("table already exists"), and
    /// turning a new file to WAL can meet a lock without waiting for it. Either way the attempt is repeated: while
    /// another connection is making progress (the applied migrations grew) or held a lock, for up to `patience`.
    /// Nothing is half-written: a failed migration rolls back whole.
    private static func openMigratedPool(
        path: String, configuration: Configuration, patience: TimeInterval
    ) throws -> DatabasePool {
        let deadline = ContinuousClock.now + .milliseconds(Int(patience * 1000))
        while true {
            var opened: DatabasePool?
            var appliedBefore: Set<String> = []
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                opened = pool
                appliedBefore = try pool.read { try Schema.migrator.appliedIdentifiers($0) }
                try migrate(pool, path: path)
                return pool
            } catch let error as DatabaseError where ContinuousClock.now < deadline {
                let locked = error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
                let appliedNow = try? opened?.read { try Schema.migrator.appliedIdentifiers($0) }
                guard locked || (appliedNow.map { $0 != appliedBefore } ?? false) else { throw error }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// Refuses a database a newer version migrated (its unknown migrations are named), then runs every migration
    /// this version has that the database lacks.
    private static func migrate(_ writer: some DatabaseWriter, path: String) throws {
        let migrator = Schema.migrator
        let unknown = try writer.read { db -> [String] in
            guard try migrator.hasBeenSuperseded(db) else { return [] }
            let known = Set(migrator.migrations)
            return try migrator.appliedIdentifiers(db).filter { !known.contains($0) }.sorted()
        }
        if !unknown.isEmpty { throw DataStoreError.schemaTooNew(path: path, unknownMigrations: unknown) }
        try migrator.migrate(writer)
    }

    /// A new database is created empty first, 0600 in a 0700 folder (`PrivateFiles`); SQLite gives its WAL and
    /// shared-memory files the database file's mode. An existing file shorter than one page (512 bytes) but not
    /// empty is no database, and SQLite would take it for an empty one and write over it: it is refused here. A
    /// longer one is left to SQLite, which refuses a file without its header (`SQLITE_NOTADB`, `notADatabase`)
    /// before writing anything. An empty file is a new database (or one whose pages are all still in its WAL).
    ///
    /// Nothing here opens an existing file, only `stat`s it: closing any descriptor of a file drops every POSIX lock
    /// this process holds on it, SQLite's included. Were another connection of this process open on the file (a
    /// second storage on it), its shared lock would be gone, and the next process to close the database would take
    /// itself for the last one, checkpoint and delete the WAL under this process's connections: a corrupt database.
    private static func prepareFile(at path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw DataStoreError.cannotOpen(path: path, reason: "it is a folder")
        }
        do {
            try PrivateFiles.createFileIfMissing(path)
        } catch let error as NSError where error.domain == NSPOSIXErrorDomain {
            throw DataStoreError.cannotOpen(path: path, reason: error.localizedDescription)
        }
        // `stat` follows a symbolic link: a database reached through one is measured, not the link.
        var status = stat()
        let size = stat(path, &status) == 0 ? Int(status.st_size) : 0
        if (1..<512).contains(size) { throw DataStoreError.notADatabase(path: path) }
    }

    private static func mapErrors<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw DataStoreError.notADatabase(path: path)
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }
}

extension DatabaseStorage: LocalSnapshotReading {
    /// A file is read on one of the pool's reader connections, in one read transaction: WAL gives it the database
    /// as it stood at its first read, and writers go on meanwhile. An in-memory database has one connection: there
    /// the snapshot is a unit of work that is rolled back, and writers wait for it.
    public func readSnapshot<Value>(_ body: (any DataStoreProtocol) throws -> Value) throws -> Value {
        switch location {
        case .file:
            do {
                return try writer.read { db in try body(LocalStore(storage: self, snapshot: db)) }
            } catch {
                throw StoreErrors.map(error, path: location.displayPath)
            }
        case .inMemory:
            return try body(LocalStore(storage: self))
        }
    }
}

extension DatabaseStorage.Location {
    var displayPath: String {
        switch self {
        case .file(let path): path
        case .inMemory: ":memory:"
        }
    }
}

/// Translates GRDB errors into `DataStoreError`, so no caller outside Persistence sees GRDB types.
enum StoreErrors {
    /// `path` names the database in the errors that tell the user what to do with its file.
    static func map(_ error: any Error, path: String) -> any Error {
        switch error {
        case let error as DataStoreError:
            return error
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: return DataStoreError.busy(seconds: 5)
            case .SQLITE_CANTOPEN:
                return DataStoreError.cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_CORRUPT:
                return DataStoreError.damaged(path: path, detail: error.message ?? "\(error.resultCode)")
            default: return DataStoreError.storage(error.message ?? error.description)
            }
        case let error as EncodingError:
            return DataStoreError.invalidData("\(error)")
        case let error as DecodingError:
            return DataStoreError.invalidData("\(error)")
        default:
            return error
        }
    }
}
