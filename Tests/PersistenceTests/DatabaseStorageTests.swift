import Foundation
import GRDB
import Models
import Protocols
import TestSupport
import Testing

@testable import Persistence

@Suite("Database storage")
struct DatabaseStorageTests {
    /// A file an earlier version made: migrated only up to `migration`, with `sql` run on it.
    static func fileMade(
        upTo migration: String, in directory: TemporaryDirectory, _ sql: String, _ arguments: StatementArguments
    ) throws -> String {
        let path = directory.path("old.sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: migration)
        try old.write { try $0.execute(sql: sql, arguments: arguments) }
        try old.close()
        return path
    }

    /// A new database file in `directory` holding what `body` wrote through one store, saved and closed.
    static func file(
        in directory: TemporaryDirectory, writing body: (any DataStoreProtocol) throws -> Void
    ) throws -> String {
        let path = directory.path("trendy.sqlite")
        let store = try DefaultDataStoreFactory(.file(path: path)).makeDataStore()
        try body(store)
        try store.save()
        return path
    }

    @Test("a file opens in WAL mode with a busy timeout, creating its folder")
    func walMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nested/folder/trendy.sqlite")
        _ = try DatabaseStorage.open(.file(path: path))
        #expect(FileManager.default.fileExists(atPath: path))
        let reader = try DatabaseQueue(path: path)
        #expect(try reader.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test(
        "a file that is not a database is refused with a clear error and left byte for byte unchanged",
        arguments: [
            Data("these are my notes, not a database\n".utf8),
            // One byte: SQLite alone would take it for an empty database and write over it.
            Data("x".utf8),
            // Longer than a page: SQLite refuses it itself.
            Data(String(repeating: "not a database page; ", count: 400).utf8),
        ])
    func notADatabase(contents: Data) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        try contents.write(to: URL(fileURLWithPath: path))
        #expect(throws: DataStoreError.notADatabase(path: path)) { try DatabaseStorage.open(.file(path: path)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.sqlite"])
        let message = DataStoreError.notADatabase(path: path).description
        #expect(message.contains("not a Trendy database") && message.contains("--db"))
    }

    @Test("a database reached through a symbolic link opens with its rows (the link's own size is not the file's)")
    func symbolicLink() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(in: directory) { store in
            try store.upsertEventType(id: Build.id(1)) { $0.name = "Linked" }
        }
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let store = try DefaultDataStoreFactory(.file(path: link)).makeDataStore()
        #expect(try store.fetchAllEventTypes().map(\.name) == ["Linked"])
        try store.save()
    }

    @Test(
        "a path that cannot be a database file is a clear error naming it and the reason",
        arguments: ["folder", "under a file", "a link to nowhere"])
    func cannotOpen(_ case: String) throws {
        let directory = try TemporaryDirectory()
        let path: String
        let reason: String
        switch `case` {
        case "folder":
            path = directory.url.path
            reason = "it is a folder"
        case "under a file":
            try Data().write(to: directory.url.appendingPathComponent("plain"))
            path = directory.path("plain/notes.sqlite")
            reason = "Not a directory"
        default:  // a link to a folder that does not exist: SQLite itself cannot open it (SQLITE_CANTOPEN)
            path = directory.path("notes.sqlite")
            try FileManager.default.createSymbolicLink(
                atPath: path, withDestinationPath: directory.path("gone/notes.sqlite"))
            reason = "unable to open"
        }
        #expect {
            try DatabaseStorage.open(.file(path: path))
        } throws: { error in
            guard case .cannotOpen(let named, let why) = error as? DataStoreError else { return false }
            return named == path && why.contains(reason)
        }
        let message = DataStoreError.cannotOpen(path: path, reason: reason).description
        #expect(message.contains("cannot open \(path)") && message.contains("--db"))
    }

    @Test("a damaged page is a clear error that names the file and the way out, and writes nothing")
    func damagedPage() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(in: directory) { store in
            for index in 1...300 { try store.upsertEventType(id: Build.id(index)) { $0.name = "Type \(index)" } }
        }
        let rootPage = try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'event_type'")
        }
        let page = try #require(rootPage)
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try file.seek(toOffset: UInt64((page - 1) * 4096))
        try file.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try file.close()
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))

        let store = try DefaultDataStoreFactory(.file(path: path)).makeDataStore()
        let error = try #require(throws: DataStoreError.self) { try store.fetchAllEventTypes() }
        guard case .damaged(let named, _) = error else {
            Issue.record("expected .damaged, got \(error)")
            return
        }
        #expect(named == path)
        #expect(error.description.contains(path) && error.description.contains("sync --full"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
        // The page above failed in a statement of our own (`RawStatement`); a GRDB query's failure maps the same way.
        let grdbFailure = DatabaseError(resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed")
        #expect(
            StoreErrors.map(grdbFailure, path: path) as? DataStoreError
                == .damaged(path: path, detail: "database disk image is malformed"))
    }

    /// Closing any descriptor of a file drops every POSIX lock the process holds on it. Opening a second storage
    /// on a file must not do that to the first's connections: without their shared lock on the file, the next
    /// process to close the database takes itself for the last one and deletes the WAL under them.
    @Test(
        "a second storage on one file leaves the first's SQLite locks in place",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/locks"), "Linux's /proc/locks lists the locks"))
    func secondStorageKeepsLocks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trendy.sqlite")
        let first = try DefaultDataStoreFactory(.file(path: path))
        let store = first.makeDataStore()
        try store.upsertEventType(id: Build.id(1)) { $0.name = "Kept" }
        try store.save()
        _ = try first.makeDataStore().fetchAllEventTypes()
        let inode = try #require(
            try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)
        func heldByThisProcess() throws -> Bool {
            let pid = ProcessInfo.processInfo.processIdentifier
            return try String(contentsOfFile: "/proc/locks", encoding: .utf8).split(separator: "\n").contains {
                $0.contains(" \(pid) ") && $0.contains(":\(inode.uint64Value) ")
            }
        }
        #expect(try heldByThisProcess(), "the open storage holds SQLite's shared lock on the file")
        let second = try DefaultDataStoreFactory(.file(path: path))
        #expect(try heldByThisProcess(), "opening a second storage dropped the first's locks")
        #expect(try second.makeDataStore().fetchAllEventTypes().map(\.name) == ["Kept"])
    }

    /// Two processes that open a new database at once (a watcher starting beside a command) both find it
    /// unmigrated; each migration runs in a transaction of its own, so the second to get there used to fail with
    /// "table event_type already exists". Storages in one process race the same way: each has its own connections.
    @Test("storages opened at once on a new file all open it, and it is migrated once")
    func concurrentFirstOpens() async throws {
        for round in 0..<10 {
            let directory = try TemporaryDirectory()
            let path = directory.path("trendy-\(round).sqlite")
            let opened = try await withThrowingTaskGroup(of: DatabaseStorage.self) { group in
                for _ in 0..<6 { group.addTask { try DatabaseStorage.open(.file(path: path)) } }
                return try await group.reduce(into: [DatabaseStorage]()) { $0.append($1) }
            }
            #expect(opened.count == 6)
            let reader = try DatabaseQueue(path: path)
            let applied = try await reader.read { try Schema.migrator.appliedIdentifiers($0) }
            #expect(applied == Set(Schema.migrator.migrations))
            let store = DefaultDataStoreFactory(storage: opened[5]).makeDataStore()
            try store.upsertEventType(id: Build.id(1)) { $0.name = "Coffee" }
            try store.save()
            #expect(try DefaultDataStoreFactory(storage: opened[0]).makeDataStore().fetchAllEventTypes().count == 1)
        }
    }

    /// An export reads many lists and pages: on one snapshot they agree with each other, whatever a sync commits
    /// meanwhile, and the sync does not wait for the export.
    @Test("a snapshot's reads all see the file as at the first one; writers meanwhile do not wait for it")
    func snapshotOfAFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trendy.sqlite")
        let factory = try DefaultDataStoreFactory(.file(path: path))
        let otherProcess = try DefaultDataStoreFactory(.file(path: path))
        func add(_ number: Int, through stores: DefaultDataStoreFactory) throws {
            let store = stores.makeDataStore()
            try store.upsertEventType(id: Build.id(number)) { $0.name = "Type \(number)" }
            try store.save()
        }
        try add(1, through: factory)
        let (first, last) = try factory.readSnapshot { snapshot in
            let first = try snapshot.fetchAllEventTypes().map(\.name)
            // Both commit at once (a writer that waited for the snapshot would fail with busy after 5 s).
            try add(2, through: otherProcess)
            try add(3, through: factory)
            return (first, try snapshot.fetchAllEventTypes().map(\.name))
        }
        #expect(first == ["Type 1"] && last == ["Type 1"])
        #expect(try factory.makeDataStore().fetchAllEventTypes().count == 3)
        #expect(throws: DataStoreError.self) {
            try factory.readSnapshot { try $0.upsertEventType(id: Build.id(4)) { $0.name = "Type 4" } }
        }
        #expect(try factory.makeDataStore().findEventType(id: Build.id(4)) == nil)
    }

    @Test(
        "a snapshot of an in-memory store or the mock reads what is committed, and a write through it changes nothing",
        arguments: ["in-memory", "mock"])
    func snapshotOfOneConnection(kind: String) throws {
        let factory: any DataStoreFactory & LocalSnapshotReading =
            kind == "mock" ? try MockDataStoreFactory() : try DefaultDataStoreFactory(.inMemory)
        let store = factory.makeDataStore()
        try store.upsertEventType(id: Build.id(1)) { $0.name = "Kept" }
        try store.save()
        let names = try factory.readSnapshot { snapshot in
            _ = try? snapshot.upsertEventType(id: Build.id(2)) { $0.name = "Dropped" }
            return try snapshot.fetchAllEventTypes().map(\.name).filter { $0 == "Kept" }
        }
        #expect(names == ["Kept"])
        #expect(try factory.makeDataStore().fetchAllEventTypes().map(\.name) == ["Kept"])
    }

    @Test("a database migrated by a newer version is refused and its data is untouched")
    func schemaTooNew() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(in: directory) { try $0.upsertEventType(id: Build.id(1)) { $0.name = "Kept" } }
        let queue = try DatabaseQueue(path: path)
        let applied = try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM grdb_migrations") }
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
        }
        try queue.close()
        #expect(throws: DataStoreError.schemaTooNew(path: path, unknownMigrations: ["v9-from-the-future"])) {
            try DatabaseStorage.open(.file(path: path))
        }
        let check = try DatabaseQueue(path: path)
        #expect(try check.read { try String.fetchOne($0, sql: "SELECT name FROM event_type") } == "Kept")
        let after = try check.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM grdb_migrations") }
        #expect(after.map { $0 - 1 } == applied, "no migration ran on the refused file")
    }

    @Test("a file made by v1 gains the query indexes on open, keeps its rows, and lookups stop scanning")
    func upgradeAddsIndexes() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.fileMade(
            upTo: "v1-initial", in: directory,
            "INSERT INTO event_type (id, name, color, icon, created_at, sync_status) VALUES (?, ?, ?, ?, 0, ?)",
            [Build.id(1), "Kept", "#fff", "cup", "synced"])

        let store = try DefaultDataStoreFactory(.file(path: path)).makeDataStore()
        #expect(try store.findEventType(id: Build.id(1))?.name == "Kept")
        let check = try DatabaseQueue(path: path)
        let plan = { (sql: String) in
            try check.read { db in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
            }
        }
        let lookup = try plan(
            "SELECT id FROM event WHERE event_type_id = 'x' AND timestamp >= 1 AND timestamp <= 1 ORDER BY timestamp DESC"
        )
        #expect(lookup.contains { $0.contains("INDEX event_by_type_time") }, "\(lookup)")
        let count = try plan("SELECT state, COUNT(*) FROM pending_mutations GROUP BY state")
        #expect(count.contains { $0.contains("INDEX pending_mutations_by_state") }, "\(count)")
    }

    @Test("a file made by v2 keeps its engine state on open and gains an empty set of unfetched definition types")
    func upgradeAddsUnfetchedDefinitionTypes() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.fileMade(
            upTo: "v2-query-indexes", in: directory,
            "INSERT INTO sync_engine_state (id, cursor, pending_delete_ids) VALUES (1, 77, ?)", ["[\"\(Build.id(5))\"]"]
        )

        let store = try DefaultDataStoreFactory(.file(path: path)).makeDataStore()
        let state = try store.loadEngineState()
        #expect(state.cursor == 77 && state.pendingDeleteIds == [Build.id(5)])
        #expect(state.unfetchedDefinitionTypes.isEmpty)
        var changed = state
        changed.unfetchedDefinitionTypes = [Build.id(6)]
        try store.saveEngineState(changed)
        try store.save()
        #expect(try DefaultDataStoreFactory(.file(path: path)).makeDataStore().loadEngineState() == changed)
    }

    @Test("S17 data and engine state survive closing and reopening the file")
    func survivesRestart() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(in: directory) { store in
            try store.saveEngineState(
                EngineState(cursor: 42, quietUntil: Build.instant, geofencesRefreshedAt: Build.instant))
            _ = try store.enqueueMutation(
                entityType: .eventType, operation: .delete, entityId: Build.id(1), payload: nil, at: Build.instant)
        }
        let store = try DefaultDataStoreFactory(.file(path: path)).makeDataStore()
        // S17: Cursor, bootstrap_requested, pending_delete_ids, breaker fields, quiet_until, last_success_at…
        #expect(
            try store.loadEngineState()
                == EngineState(cursor: 42, quietUntil: Build.instant, geofencesRefreshedAt: Build.instant))
        #expect(try store.fetchPendingMutations().map(\.entityId) == [Build.id(1)])
    }

    @Test("an open unit of work is invisible to other connections until save")
    func isolationFromOtherConnections() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trendy.sqlite")
        let factory = try DefaultDataStoreFactory(.file(path: path))
        let otherConnection = try DatabaseQueue(path: path)
        func countOutside() throws -> Int {
            try otherConnection.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM event_type") ?? -1 }
        }
        let store = factory.makeDataStore()
        try store.upsertEventType(id: Build.id(1)) { _ in }
        #expect(try countOutside() == 0)
        try store.save()
        #expect(try countOutside() == 1)
    }

    @Test("a second unit of work waits for the first; past the busy timeout it fails with busy and recovers")
    func busyTimeout() throws {
        let storage = try DatabaseStorage.open(.inMemory, busyTimeout: 0)
        let first = LocalStore(storage: storage)
        try first.upsertEventType(id: Build.id(1)) { _ in }
        let second = LocalStore(storage: storage)
        #expect(throws: DataStoreError.busy(seconds: 0)) { try second.findEventType(id: Build.id(1)) }
        try first.save()
        #expect(try second.findEventType(id: Build.id(1)) != nil)
        try second.save()
    }

    @Test("a store released in the middle of a transaction frees the database for the next one")
    func releaseFreesTheLease() throws {
        let storage = try DatabaseStorage.open(.inMemory, busyTimeout: 0)
        do {
            let abandoned = LocalStore(storage: storage)
            try abandoned.upsertEventType(id: Build.id(1)) { _ in }
        }
        let next = LocalStore(storage: storage)
        #expect(try next.fetchAllEventTypes().isEmpty)
        try next.save()
    }

    @Test("stores on other threads commit their own units of work without losing writes")
    func concurrentUnitsOfWork() async throws {
        let directory = try TemporaryDirectory()
        let factory = try DefaultDataStoreFactory(.file(path: directory.path("trendy.sqlite")))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for item in 0..<25 {
                        let store = factory.makeDataStore()
                        let id = Build.id(worker * 100 + item)
                        try store.upsertEventType(id: id) { $0.name = "w\(worker)-\(item)" }
                        _ = try store.enqueueMutation(
                            entityType: .eventType, operation: .delete, entityId: id, payload: nil, at: Build.instant)
                        try store.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = factory.makeDataStore()
        #expect(try store.fetchAllEventTypes().count == 100)
        #expect(try store.countMutations() == MutationCounts(pending: 100, failed: 0))
    }

    @Test("an upsert that leaves a synced row as it is writes nothing; one that changes it writes it once")
    func unchangedUpsertWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trendy.sqlite")
        let factory = try DefaultDataStoreFactory(.file(path: path))
        let store = factory.makeDataStore()
        try store.upsertEvent(id: Build.id(1)) {
            $0.eventTypeId = Build.id(2)
            $0.timestamp = Build.instant
            $0.notes = "kept"
            $0.locationLatitude = 52.520_008
            $0.locationLongitude = 13.404_954
            $0.properties = ["mood": PropertyValue(type: .text, value: "good")]
        }
        try store.save()
        let log = try DatabaseQueue(path: path)
        try log.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE test_writes (id TEXT);
                    CREATE TRIGGER test_event_written AFTER UPDATE ON event
                    BEGIN INSERT INTO test_writes VALUES (new.id); END;
                    """)
        }
        func writes() throws -> Int {
            try log.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM test_writes") } ?? 0
        }

        let stored = try #require(try store.findEvent(id: Build.id(1)))
        let unchanged = try store.upsertEvent(id: Build.id(1)) { $0 = stored }
        try store.save()
        #expect(try writes() == 0)
        #expect(unchanged == stored)

        let edited = try store.upsertEvent(id: Build.id(1)) { $0.notes = "edited" }
        try store.save()
        #expect(try writes() == 1)
        #expect(try store.findEvent(id: Build.id(1)) == edited)
    }
}

/// A directory under the system temporary folder, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
