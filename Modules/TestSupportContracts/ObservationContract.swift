import Foundation
import Models
import Protocols
import Synchronization
import TestSupport
import Testing

/// The `LocalDataObserving` contract (sync-engine R13), as named async checks, for the SQLite stores and the mock.
///
/// A subject is a factory that observes, and, for a file database, a second factory on the same file: another
/// process's connection, whose commits must be observed too.
public enum ObservationContract {
    /// What a check runs against.
    public struct Subject: Sendable {
        /// The observing factory under test.
        public let factory: any DataStoreFactory & LocalDataObserving
        /// Another connection to the same database (another process), when the database is a file.
        public let otherProcess: (any DataStoreFactory)?

        /// A subject; `otherProcess` nil for an in-memory database.
        public init(factory: any DataStoreFactory & LocalDataObserving, otherProcess: (any DataStoreFactory)?) {
            self.factory = factory
            self.otherProcess = otherProcess
        }
    }

    /// One named check.
    public typealias Check = ContractCheck<Subject>

    static func check(_ name: String, _ body: @escaping @Sendable (Subject) async throws -> Void) -> Check {
        Check(name: name, body: body)
    }

    /// Consumes an observation and keeps its values.
    final class Values: Sendable {
        private let values = Mutex<[Int]>([])
        private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

        init(_ stream: AsyncThrowingStream<Int, any Error>) {
            let consumer = Task { [weak self] in
                do {
                    for try await value in stream { self?.values.withLock { $0.append(value) } }
                } catch {}
            }
            task.withLock { $0 = consumer }
        }

        var all: [Int] { values.withLock { $0 } }

        /// Waits (`waitUntil`) until the last value is `expected`.
        func waitForLast(_ expected: Int) async throws {
            try await waitUntil("the observation to show \(expected)", lastSeen: "\(all)") { all.last == expected }
        }

        func cancel() { task.withLock { $0 }?.cancel() }
    }

    static func typeCount(_ factory: any LocalDataObserving) -> Values {
        Values(factory.observe { store in try store.fetchAllEventTypes().count })
    }

    static func addType(_ factory: any DataStoreFactory, _ number: Int) throws {
        let store = factory.makeDataStore()
        try store.insertEventType(Build.eventType(id: Build.id(number), name: "Type \(number)"))
        try store.save()
    }

    /// Every check, to pass as a parameterized test's arguments.
    public static let checks: [Check] = [
        check("R13 yields the result at once, then after each committed change; an equal result is not repeated") {
            subject in
            let values = typeCount(subject.factory)
            defer { values.cancel() }
            try await values.waitForLast(0)
            try addType(subject.factory, 1)
            try await values.waitForLast(1)
            // A commit that leaves the result as it was yields nothing new.
            let store = subject.factory.makeDataStore()
            var engineState = try store.loadEngineState()
            engineState.cursor = 42
            try store.saveEngineState(engineState)
            try store.save()
            try addType(subject.factory, 2)
            try await values.waitForLast(2)
            #expect(values.all == [0, 1, 2])
        },
        check("R13 a unit of work that is not saved is never observed") { subject in
            let values = typeCount(subject.factory)
            defer { values.cancel() }
            try await values.waitForLast(0)
            do {
                let store = subject.factory.makeDataStore()
                try store.insertEventType(Build.eventType(id: Build.id(7), name: "Rolled back"))
            }
            try addType(subject.factory, 8)
            try await values.waitForLast(1)
            #expect(values.all == [0, 1])
        },
        check("R13 another process's commits are observed") { subject in
            guard let other = subject.otherProcess else { return }
            let values = typeCount(subject.factory)
            defer { values.cancel() }
            try await values.waitForLast(0)
            try addType(other, 3)
            try await values.waitForLast(1)
        },
    ]
}
