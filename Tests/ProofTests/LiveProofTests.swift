import Proofs
import Testing
import TrendyServer

/// The short version of `trendy-proof --parts live`: a device in live mode (R12) the whole run, while every device
/// makes the random moves, the server cuts streams mid-batch and restarts (docs/reliability.md).
@Suite("Live proof (short)")
struct LiveProofTests {
    @Test(
        "R12 a live device converges like the others; no stream entry is applied twice",
        .timeLimit(.minutes(5)))
    func seeds() async throws {
        var streamed = 0
        for seed in [1, 2, 3] as [UInt64] {
            var settings = ProofSettings(seed: seed)
            settings.operations = 80
            settings.liveDevices = 1
            settings.faults.probabilityStreamCut = 0.1
            let outcome = try await ConvergenceProof.run(settings, timeLimit: .seconds(120))
            #expect(outcome.passed, "\(outcome.report)")
            streamed += outcome.moves["liveStreamedEntries"] ?? 0
        }
        #expect(streamed > 0, "the live device applied entries from the stream")
    }
}
