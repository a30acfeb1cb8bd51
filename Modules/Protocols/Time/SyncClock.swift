import Foundation

/// The only source of time for the engine and the network client (sync-engine §2.8): breaker, quiet period,
/// history, mutation timestamps, UUIDv7 and 429 waits. Tests inject a manual clock and never sleep.
public protocol SyncClock: Sendable {
    /// The current instant.
    func now() -> Date

    /// Suspends for `seconds` of this clock's time. Throws `CancellationError` when the task is cancelled.
    func sleep(for seconds: TimeInterval) async throws
}

/// Wall-clock time and real sleeping: the production clock.
public struct SystemClock: SyncClock {
    /// The clock of the machine.
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(for seconds: TimeInterval) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
