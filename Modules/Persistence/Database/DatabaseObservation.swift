import Foundation
import GRDB
import Models
import Protocols
import Synchronization

/// Who hears this process's commits (`LocalStore.save`).
final class CommitListeners: Sendable {
    private let listeners = Mutex<[UUID: @Sendable () -> Void]>([:])

    func add(_ listener: @escaping @Sendable () -> Void) -> UUID {
        let id = UUID()
        listeners.withLock { $0[id] = listener }
        return id
    }

    func remove(_ id: UUID) { _ = listeners.withLock { $0.removeValue(forKey: id) } }

    func committed() {
        for listener in listeners.withLock({ Array($0.values) }) { listener() }
    }
}

extension DatabaseStorage: LocalDataObserving {
    /// How often another process's commits are looked for (`PRAGMA data_version` on a connection of its own).
    static let otherProcessPollInterval = Duration.milliseconds(50)

    /// R13 on SQLite: every unit of work of this process that commits rings the observation (`LocalStore.save`
    /// announces it: GRDB's own observation cannot see the statements the hot paths run on the raw SQLite handle);
    /// for a file, a second connection polls `PRAGMA data_version`, which changes when any other connection —
    /// another process's included — commits. Each ring re-runs `query` in a unit of work that is rolled back.
    public func observe<Value: Sendable & Equatable>(
        _ query: @escaping @Sendable (any DataStoreProtocol) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        // Each observation queries on a queue of its own: one that waits for its writer never delays another's.
        let queue = DispatchQueue(label: "trendy.observation")
        return observe { [self] in try await Self.run(query, on: self, queue: queue) }
    }

    /// The observation loop with `read` as the way to run the query: rings on every commit of this process and,
    /// for a file, on every other process's; equal results are yielded once. A store with a discipline of its own
    /// (the test double of TestSupport) reads through it.
    public func observe<Value: Sendable & Equatable>(
        reading read: @escaping @Sendable () async throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let (results, output) = AsyncThrowingStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let (rings, doorbell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        doorbell.yield()
        let listener = commitListeners.add { doorbell.yield() }
        let poller = otherProcessPoller(doorbell)
        let runner = Task {
            var last: Value?
            for await _ in rings {
                if Task.isCancelled { break }
                do {
                    let value = try await read()
                    if value != last {
                        last = value
                        output.yield(value)
                    }
                } catch DataStoreError.busy {
                    // A long unit of work holds the database: look again a little later.
                    try? await Task.sleep(for: Self.otherProcessPollInterval)
                    doorbell.yield()
                } catch {
                    output.finish(throwing: error)
                    return
                }
            }
            output.finish()
        }
        output.onTermination = { _ in
            runner.cancel()
            poller?.cancel()
            self.commitListeners.remove(listener)
            doorbell.finish()
        }
        return results
    }

    /// Runs `query` in a unit of work of its own, rolled back, on `queue`: a query may wait for the writer (up to
    /// the busy timeout), and that wait must not hold one of the few threads of Swift's cooperative pool.
    private static func run<Value: Sendable>(
        _ query: @escaping @Sendable (any DataStoreProtocol) throws -> Value, on storage: DatabaseStorage,
        queue: DispatchQueue
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let store = LocalStore(storage: storage)
                defer { store.rollback() }
                continuation.resume(with: Result { try query(store) })
            }
        }
    }

    /// For a file: rings `doorbell` whenever `PRAGMA data_version` changes; nil in memory (no other process).
    private func otherProcessPoller(_ doorbell: AsyncStream<Void>.Continuation) -> Task<Void, Never>? {
        guard case .file(let path) = location else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "trendy.observation"
        guard let connection = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        // Read before the first query runs: a commit between the two is then a change, never the baseline.
        var seen = try? connection.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.otherProcessPollInterval)
                let version = try? await connection.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
                if let version, version != seen {
                    doorbell.yield()
                    seen = version
                }
            }
        }
    }
}
