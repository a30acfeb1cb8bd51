import Foundation
import Logging
import Models
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The shared backend: PostgreSQL through postgres-nio, for several trendy-server instances on one database.
///
/// Handlers are synchronous functions of a transaction, so each transaction runs on a thread of a small pool
/// (`threads`) and waits on its connection's futures there; the cooperative pool and
/// the event loops never block. docs/server.md, "Several instances on PostgreSQL".
final class PostgresStorage: ServerStorage {
    private let client: PostgresClient
    private let clientTask: Task<Void, Never>
    private let logger: Logger
    /// Transactions running now; `close` waits for them (see there).
    private let inFlight = Atomic<Int>(0)

    /// Connects, and migrates the schema under an advisory lock (instances that start together wait their turn).
    init(_ location: PostgresLocation, maximumConnections: Int = 16, logger: Logger) async throws {
        var configuration = location.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        self.logger = logger
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        clientTask = Task { [client] in await client.run() }
        do {
            try await client.withConnection { [logger] connection in
                try await PostgresTransaction.run(
                    on: connection, readOnly: false, user: nil, claim: nil, migrating: true, logger: logger,
                    threads: Self.threads
                ) { db in try PostgresSchema.migrate(db, schema: location.schema, location: location.redacted) }
            }
        } catch let error as DatabaseTooNew {
            try? await close()
            throw error
        } catch {
            try? await close()
            throw StorageUnavailable(location: location.redacted, underlying: error)
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageTransaction) throws -> T) async throws -> T {
        try await run(readOnly: true, user: nil, claim: nil, attempts: 1, body)
    }

    func write<T: Sendable>(
        user: String?, claim: String?, _ body: @escaping @Sendable (any StorageTransaction) throws -> T
    ) async throws -> T {
        try await run(readOnly: false, user: user, claim: claim, attempts: 3, body)
    }

    var sharesCommits: Bool { true }

    /// LISTENs on `PostgresTransaction.commitChannel` on a connection of its own; each user write NOTIFYs it
    /// with `user change-id` as it commits. A lost connection is re-established after a second; what was
    /// missed meanwhile is found by the streams' re-read (`CommitWatch`).
    func listenForCommits(_ onCommit: @escaping @Sendable (String, Int64?) -> Void) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: PostgresTransaction.commitChannel) { notifications in
                        for try await notification in notifications {
                            let parts = notification.payload.split(separator: " ", maxSplits: 1)
                            guard let user = parts.first else { continue }
                            onCommit(String(user), parts.count > 1 ? Int64(parts[1]) : nil)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "listening for other instances' commits failed; retrying", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Waits for the transactions in flight (at most `closeDrainLimit`), then closes every connection. A
    /// cancelled server cancels its services and its connections' tasks at once, so the storage may be asked to
    /// close while a request's transaction still waits for a connection or an answer; closing the pool under it
    /// left that wait — and the server's stop — hanging for good. Drained first, the transaction finishes or sees
    /// its cancellation, and the pool closes empty.
    func close() async throws {
        // An unstructured task: the caller may be cancelled already, and the wait must still sleep.
        await Task { [self] in
            let deadline = ContinuousClock.now + Self.closeDrainLimit
            while self.inFlight.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }.value
        clientTask.cancel()
        await clientTask.value
    }

    /// How long `close` waits for transactions in flight.
    static let closeDrainLimit = Duration.seconds(10)

    /// One transaction on a leased connection. A write that lost a race another transaction committed first (a
    /// unique key, a serialisation failure, a deadlock) runs again from the start: handlers are pure functions of
    /// what they read, so the second run sees the winner's row and answers as if it had come second.
    private func run<T: Sendable>(
        readOnly: Bool, user: String?, claim: String?, attempts: Int,
        _ body: @escaping @Sendable (any StorageTransaction) throws -> T
    ) async throws -> T {
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        var attempt = 1
        while true {
            do {
                return try await client.withConnection { [logger] connection in
                    try await PostgresTransaction.run(
                        on: connection, readOnly: readOnly, user: user, claim: claim, logger: logger,
                        threads: Self.threads, body)
                }
            } catch let error as PSQLError where attempt < attempts && PostgresTransaction.isRetryable(error) {
                attempt += 1
            }
        }
    }
}

extension PostgresStorage {
    /// The threads transactions run on, shared by every storage of the process and never shut down (like NIO's
    /// singletons). A transaction takes one only once it holds its locks, so these threads are never idle-blocked
    /// on another transaction.
    static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 16)
        pool.start()
        return pool
    }()
}

/// The database named by `--postgres` could not be reached or migrated.
public struct StorageUnavailable: Error, CustomStringConvertible {
    public let location: String
    let underlying: any Error

    public var description: String {
        let reason = (underlying as? PSQLError).map(PostgresTransaction.describe) ?? "\(underlying)"
        return "cannot open the PostgreSQL database \(location): \(reason)"
    }
}

/// `trendy-server mark-restored --postgres` (api-v1 §15): after `pg_restore`, before the instances start again.
public enum PostgresRestores {
    /// Starts a new history on the database; `backupTakenAt` is when the dump was taken, if known.
    public static func markRestored(
        _ location: PostgresLocation, backupTakenAt: Date?, now: Date, logger: Logger
    ) async throws -> ServerHistory {
        let storage = try await PostgresStorage(location, maximumConnections: 1, logger: logger)
        do {
            let history = try await storage.write(user: nil, claim: nil) { db in
                try ServerHistories.markRestored(
                    db, backupTakenAt: backupTakenAt?.millisecondsSince1970, now: now.millisecondsSince1970)
            }
            try await storage.close()
            return history
        } catch {
            try? await storage.close()
            throw error
        }
    }
}
