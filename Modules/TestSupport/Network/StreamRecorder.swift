import Foundation
import Models
import Protocols
import Synchronization

/// Consumes a change stream (N9) on a task of its own and keeps what arrived, so a test can write, then wait —
/// with a timeout — until the stream shows it.
public final class StreamRecorder: Sendable {
    /// What the stream delivered so far.
    public struct Snapshot: Sendable {
        /// Every event, in order: the opening, the entries, a reset or a re-auth.
        public var events: [StreamEvent] = []
        /// nil while the stream is open; `.success` after a clean close, `.failure` after it threw.
        public var end: Result<Void, NetworkError>?

        /// The change entries among `events`, in order.
        public var changes: [ChangeEntry] {
            events.compactMap { if case .change(let entry) = $0 { entry } else { nil } }
        }
        /// True once the stream said it was open.
        public var isOpened: Bool { events.contains(.opened) }
    }

    /// A wait's condition did not hold within its timeout.
    @available(*, deprecated, renamed: "WaitTimedOut", message: "the recorder's waits throw WaitTimedOut")
    public typealias TimedOut = WaitTimedOut

    private let state = Mutex(Snapshot())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts consuming `stream` at once; the recorder stops when it is released or the stream ends.
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

    /// What arrived so far.
    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Waits (`waitUntil`) until `condition` holds and returns what the stream holds then.
    @discardableResult
    public func wait(
        timeout: Duration = TestWait.limit, until condition: @Sendable (Snapshot) -> Bool
    ) async throws -> Snapshot {
        var seen = snapshot
        try await waitUntil(
            "the stream to reach the expected state", timeout: timeout,
            lastSeen: "\(seen.events.count) events, end \(String(describing: seen.end))"
        ) {
            seen = snapshot
            return condition(seen)
        }
        return seen
    }

    /// Waits until the stream holds `count` changes.
    @discardableResult
    public func waitForChanges(_ count: Int, timeout: Duration = TestWait.limit) async throws -> [ChangeEntry] {
        try await wait(timeout: timeout) { $0.changes.count >= count }.changes
    }

    /// Waits until the stream ends.
    @discardableResult
    public func waitForEnd(timeout: Duration = TestWait.limit) async throws -> Result<Void, NetworkError> {
        let snapshot = try await wait(timeout: timeout) { $0.end != nil }
        return snapshot.end ?? .success(())
    }

    /// Stops consuming (the stream's connection closes).
    public func cancel() { task.withLock { $0 }?.cancel() }

    deinit { task.withLock { $0 }?.cancel() }
}
