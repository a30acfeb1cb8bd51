import Foundation
import GRDB
import Models
import Protocols

/// The SQLite implementation of `DataStoreProtocol`: one unit of work on a `DatabaseStorage`.
///
/// The first operation takes the storage's writer lease and runs `BEGIN IMMEDIATE`; every later operation
/// runs inside that transaction until `save()` commits it. A throwing operation, or releasing the store
/// unsaved, rolls the whole transaction back and frees the lease (sync-engine §2.6). A snapshot's store
/// (`DatabaseStorage.readSnapshot`) runs on a reader connection's transaction instead, and only reads.
///
/// Not `Sendable`, by design: it is a transaction in progress.
public final class LocalStore: DataStoreProtocol {
    let storage: DatabaseStorage
    /// The reader connection of a snapshot (`DatabaseStorage.readSnapshot`), inside its read transaction: every
    /// operation runs there, and there is nothing to commit or roll back.
    private let snapshot: Database?
    private var isInTransaction = false
    /// Hot statements kept for this store's lifetime: looking them up in GRDB's cache hashes the whole SQL text,
    /// which costs more than running them once per pulled row. Valid because a store's connection never changes.
    private var hotStatements: [HotStatement: Statement] = [:]

    struct HotStatement: Hashable {
        let entity: ObjectIdentifier
        let isWrite: Bool
    }

    /// A unit of work on `storage`: its first read or write begins a transaction that `save()` commits
    /// (sync-engine §2.6).
    public init(storage: DatabaseStorage) {
        self.storage = storage
        self.snapshot = nil
    }

    /// A store that reads `snapshot`, a reader connection in its read transaction, for as long as that lasts.
    init(storage: DatabaseStorage, snapshot: Database) {
        self.storage = storage
        self.snapshot = snapshot
    }

    deinit {
        rollback()
    }

    /// Runs `body` inside this store's transaction, beginning it when needed. Errors roll back and are mapped to
    /// `DataStoreError`.
    func perform<T>(_ body: (Database) throws -> T) throws -> T {
        if let snapshot {
            do {
                return try body(snapshot)
            } catch {
                throw storeError(error)
            }
        }
        if !isInTransaction {
            guard storage.lease.acquire() else { throw DataStoreError.busy(seconds: storage.lease.timeout) }
            do {
                try storage.writer.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
            } catch {
                storage.lease.release()
                throw storeError(error)
            }
            isInTransaction = true
        }
        do {
            return try storage.writer.writeWithoutTransaction(body)
        } catch {
            rollback()
            throw storeError(error)
        }
    }

    /// `error` as a `DataStoreError`, naming this store's file where the user must act on it.
    private func storeError(_ error: any Error) -> any Error {
        StoreErrors.map(error, path: storage.location.displayPath)
    }

    public func save() throws {
        guard isInTransaction else { return }
        do {
            try storage.writer.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        } catch {
            rollback()
            throw storeError(error)
        }
        isInTransaction = false
        storage.lease.release()
        storage.commitListeners.committed()
    }

    /// Ends the transaction without committing. Safe to call when none is open.
    func rollback() {
        guard isInTransaction else { return }
        isInTransaction = false
        try? storage.writer.writeWithoutTransaction { db in
            if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") }
        }
        storage.lease.release()
    }

    var now: Date { storage.clock.now() }

    /// A statement of `entity`'s table, prepared once per store (find by id, or the upsert write).
    func hotStatement<Entity: StoredEntity>(_ entity: Entity.Type, write: Bool, in db: Database) throws -> Statement {
        let key = HotStatement(entity: ObjectIdentifier(entity), isWrite: write)
        if let statement = hotStatements[key] { return statement }
        let statement = try db.cachedStatement(sql: write ? Entity.statements.write : Entity.statements.find)
        hotStatements[key] = statement
        return statement
    }
}

/// Makes a `LocalStore` per call on one opened database (sync-engine §2.6).
public struct DefaultDataStoreFactory: DataStoreFactory {
    /// The opened database every store it makes works on.
    public let storage: DatabaseStorage

    /// A factory for a database already opened.
    public init(storage: DatabaseStorage) {
        self.storage = storage
    }

    /// Opens the database at `location` and returns a factory for it.
    public init(_ location: DatabaseStorage.Location, clock: any SyncClock = SystemClock()) throws {
        self.init(storage: try DatabaseStorage.open(location, clock: clock))
    }

    public func makeDataStore() -> any DataStoreProtocol {
        LocalStore(storage: storage)
    }
}

extension DefaultDataStoreFactory: LocalSnapshotReading {
    public func readSnapshot<Value>(_ body: (any DataStoreProtocol) throws -> Value) throws -> Value {
        try storage.readSnapshot(body)
    }
}

extension DefaultDataStoreFactory: LocalDataObserving {
    public func observe<Value: Sendable & Equatable>(
        _ query: @escaping @Sendable (any DataStoreProtocol) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        storage.observe(query)
    }
}
