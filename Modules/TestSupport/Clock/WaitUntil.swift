import Foundation

/// A condition a test waited for did not come true in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let condition: String
    public let timeout: Duration

    public var description: String { "gave up after \(timeout) waiting for \(condition)" }
}

/// Returns once `condition` holds, yielding between checks; throws `WaitTimedOut` after `timeout` of real time, so a
/// test whose condition never comes true fails instead of hanging. The bound is a safety net, never a timing
/// assertion: conditions are about state the test drives (callers joined, sleepers suspended), not about speed.
public func waitUntil(
    _ condition: String, timeout: Duration = .seconds(30), _ check: () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var checks = 0
    while await !check() {
        guard clock.now < deadline else { throw WaitTimedOut(condition: condition, timeout: timeout) }
        checks += 1
        // Mostly yields, so a condition that settles as soon as other tasks run is seen at once; now and then a
        // millisecond's pause, so a long wait does not hold a core.
        if checks.isMultiple(of: 1000) { try await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
    }
}
