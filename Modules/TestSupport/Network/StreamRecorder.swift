import Foundation
import Models
import Protocols
import Synchronization

/// Consumes a change stream (N9) on a task of its own and keeps what arrived, so a test can write, then wait —
/// with a timeout — until the stream shows it.
public final class StreamRecorder: Sendable {
    /// What the stream delivered so far.
    public struct Snapshot: Sendable {
        public var events: [StreamEvent] = []
        /// nil while the stream is open; `.success` after a clean close, `.failure` after it threw.
        public var end: Result<Void, NetworkError>?

        public var changes: [ChangeEntry] {
            events.compactMap { if case .change(let entry) = $0 { entry } else { nil } }
        }
        public var isOpened: Bool { events.contains(.opened) }
    }

    /// A wait's condition did not hold within its timeout.
    public struct TimedOut: Error, CustomStringConvertible {
        public let snapshot: Snapshot
        public var description: String {
            "the stream did not reach the expected state; it holds \(snapshot.events.count) events, end \(String(describing: snapshot.end))"
        }
    }

    private let state = Mutex(Snapshot())
    private let task = Mutex<Task<Void, Never>?>(nil)

    public init(_ stream: AsyncThrowingStream<StreamEvent, any Error>) {
        let consumer = Task { [weak self] in
            do {
                for try await event in stream { self?.state.withLock { $0.events.append(event) } }
                self?.state.withLock { $0.end = .success(()) }
            } catch {
                self?.state.withLock { $0.end = .failure(error as? NetworkError ?? .transport("\(error)")) }
            }
        }
        task.withLock { $0 = consumer }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Waits until `condition` holds, checking every millisecond, for at most `timeout`.
    @discardableResult
    public func wait(
        timeout: Duration = .seconds(10), until condition: @Sendable (Snapshot) -> Bool
    ) async throws -> Snapshot {
        let deadline = ContinuousClock.now + timeout
        while true {
            let snapshot = self.snapshot
            if condition(snapshot) { return snapshot }
            guard ContinuousClock.now < deadline else { throw TimedOut(snapshot: snapshot) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Waits until the stream holds `count` changes.
    @discardableResult
    public func waitForChanges(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [ChangeEntry] {
        try await wait(timeout: timeout) { $0.changes.count >= count }.changes
    }

    /// Waits until the stream ends.
    @discardableResult
    public func waitForEnd(timeout: Duration = .seconds(10)) async throws -> Result<Void, NetworkError> {
        let snapshot = try await wait(timeout: timeout) { $0.end != nil }
        return snapshot.end ?? .success(())
    }

    /// Stops consuming (the stream's connection closes).
    public func cancel() { task.withLock { $0 }?.cancel() }

    deinit { task.withLock { $0 }?.cancel() }
}
