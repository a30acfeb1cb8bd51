import Foundation

/// The bound of every wait in the test suites: a safety net that turns a condition that never comes true into a
/// failure instead of a hang, never a timing assertion. Far above what a loaded two-core machine needs, because a
/// suite runs beside hundreds of tests that may hold every thread of Swift's cooperative pool for seconds.
public enum TestWait {
    /// Sixty seconds.
    public static let limit: Duration = .seconds(60)
}

/// A condition a test waited for did not come true within `TestWait.limit`.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the test waited for, in its words.
    public let condition: String
    /// How long it waited.
    public let timeout: Duration
    /// What the wait saw last, to tell the reader why (the output so far, the engine's state); may be empty.
    public let lastSeen: String

    /// The failure of a wait for `condition` after `timeout`.
    public init(condition: String, timeout: Duration, lastSeen: String = "") {
        self.condition = condition
        self.timeout = timeout
        self.lastSeen = lastSeen
    }

    public var description: String {
        "gave up after \(timeout) waiting for \(condition)" + (lastSeen.isEmpty ? "" : "; last seen: \(lastSeen)")
    }
}

/// The one way tests wait: returns once `check` holds, looking every millisecond; throws `WaitTimedOut` (with what
/// `lastSeen` describes) when it still does not hold after `timeout`, and rethrows what `check` throws — a check
/// that knows the condition can no longer come true (the process exited) ends the wait at once.
///
/// When the time is up, the condition gets one more look after the other tasks had a moment to run: the tasks that
/// make it true share the cooperative pool with this one, and a pool held by other work for the whole wait would
/// otherwise fail a condition that holds as soon as they run.
public func waitUntil(
    _ condition: String, timeout: Duration = TestWait.limit, lastSeen: @autoclosure () async -> String = "",
    _ check: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while try await !check() {
        guard clock.now < deadline else {
            try await Task.sleep(for: .milliseconds(100))
            if try await check() { return }
            throw WaitTimedOut(condition: condition, timeout: timeout, lastSeen: await lastSeen())
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}
