import Foundation
import Models
import Protocols
import Synchronization

/// A `SyncClock` that moves only when told to: tests never sleep and never depend on timing.
///
/// In `.suspending` mode (the default) `sleep(for:)` waits until `advance(by:)` moves time past its deadline.
/// In `.advancing` mode it moves time forward by the requested amount and returns at once, which suits code
/// whose waits should happen instantly but be measurable (every sleep is logged in `sleeps`).
public final class ManualClock: SyncClock {
    /// How `sleep(for:)` behaves.
    public enum Mode: Sendable {
        /// A sleep waits until `advance(by:)` moves time past its deadline.
        case suspending
        /// A sleep moves time forward by its duration and returns at once.
        case advancing
    }

    private struct Sleeper {
        let id: Int
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var mode: Mode
        var sleepers: [Sleeper] = []
        var nextId = 0
        var sleeps: [TimeInterval] = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the waiters satisfied by the current number of sleepers.
        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let ready = sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
            sleeperWaiters.removeAll { $0.count <= count }
            return ready
        }
    }

    private let state: Mutex<State>

    /// 2026-01-17T01:44:52.123Z unless told otherwise.
    public init(now: Date = Date(millisecondsSince1970: 1_768_614_292_123), mode: Mode = .suspending) {
        state = Mutex(State(now: now, mode: mode))
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// Every duration passed to `sleep(for:)`, in call order.
    public var sleeps: [TimeInterval] { state.withLock { $0.sleeps } }

    /// Number of `sleep(for:)` calls currently suspended.
    public var suspendedSleepers: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until at least `count` `sleep(for:)` calls are suspended, so a test can advance time knowing the
    /// sleeper it wants to wake is already waiting.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Switches how later sleeps behave; sleepers already waiting keep waiting for `advance(by:)`.
    public func set(mode: Mode) { state.withLock { $0.mode = mode } }

    /// Moves time forward and resumes every sleeper whose deadline has passed.
    public func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Sets the current time (forward or backward) without waking anyone up.
    public func set(now: Date) { state.withLock { $0.now = now } }

    public func sleep(for seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        let advanced = state.withLock { state -> Bool in
            state.sleeps.append(seconds)
            guard state.mode == .advancing else { return false }
            state.now = state.now.addingTimeInterval(max(0, seconds))
            return true
        }
        if advanced || seconds <= 0 { return }
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    let deadline = state.now.addingTimeInterval(seconds)
                    if Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, state.readyWaiters())
                }
                for waiter in ready { waiter.resume() }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }
}
