import Foundation
import TestSupport
import Testing

@Suite("waitUntil")
struct WaitUntilTests {
    @Test("returns once the condition holds, and rethrows what the check throws")
    func holds() async throws {
        var checks = 0
        try await waitUntil("the third look") {
            checks += 1
            return checks == 3
        }
        #expect(checks == 3)
        struct Gone: Error {}
        await #expect(throws: Gone.self) { try await waitUntil("never") { throw Gone() } }
    }

    @Test("a condition that never holds fails after the limit with what was seen last")
    func timesOut() async throws {
        let error = await #expect(throws: WaitTimedOut.self) {
            try await waitUntil("a green light", timeout: .milliseconds(20), lastSeen: "red") { false }
        }
        #expect(error?.description == "gave up after 0.02 seconds waiting for a green light; last seen: red")
    }

    @Test("when the time is up the condition gets one more look: it may hold as soon as other tasks have run")
    func oneMoreLook() async throws {
        let timeout = Duration.milliseconds(20)
        // Comes true a little after the wait's own limit: the look that finds the time up still sees it false, and
        // only the wait's one more look (100 ms later) sees it true.
        let comesTrue = ContinuousClock.now + timeout + .milliseconds(5)
        try await waitUntil("a condition that comes true late", timeout: timeout) { ContinuousClock.now >= comesTrue }
    }
}
