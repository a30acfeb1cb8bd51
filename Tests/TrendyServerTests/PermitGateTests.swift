import Synchronization
import Testing

@testable import TrendyServer

/// The gate large answers go through (docs/performance.md, "Large answers").
@Suite("Permit gate")
struct PermitGateTests {
    final class Holders: Sendable {
        let state = Mutex((inside: 0, most: 0, done: 0))
    }

    @Test("never more holders at once than permits, and every holder runs")
    func boundsHolders() async throws {
        for permits in [1, 2] {
            let gate = PermitGate(permits: permits)
            let holders = Holders()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await gate.holding {
                            holders.state.withLock {
                                $0.inside += 1
                                $0.most = max($0.most, $0.inside)
                            }
                            for _ in 0..<20 { await Task.yield() }
                            holders.state.withLock {
                                $0.inside -= 1
                                $0.done += 1
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let final = holders.state.withLock { $0 }
            #expect(final.most <= permits && final.done == 12, "\(permits) permits: \(final)")
        }
    }
}
