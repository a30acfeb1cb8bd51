import Proofs
import Testing

/// The short version of `make proof`'s crash part: three trials of kill -9 during push and pull (docs/reliability.md).
@Suite("Crash proof (short)", .serialized)  // one trial at a time: each runs two processes on 5 000 events
struct CrashProofTests {
    @Test(
        "kill -9 of trendyctl sync or trendy-server mid-transfer: nothing lost or duplicated, integrity_check ok",
        .timeLimit(.minutes(3)), arguments: [1, 2, 3] as [UInt64])
    func trial(seed: UInt64) async throws {
        let outcome = try await CrashProof.run(CrashSettings(seed: seed), timeLimit: .seconds(150))
        #expect(outcome.passed, "\(outcome.report)")
        #expect(outcome.kills > 0, "the trial killed something: \(outcome.report)")
    }
}
