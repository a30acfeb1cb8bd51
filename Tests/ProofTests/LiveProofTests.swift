import Proofs
import Testing

/// The short version of `trendy-proof --parts live`: a device in live mode (R12) the whole run, while every device
/// makes the random moves, the server cuts streams mid-batch and restarts (docs/reliability.md).
@Suite("Live proof (short)")
struct LiveProofTests {
    @Test(
        "R12 a live device converges like the others; no stream entry is applied twice",
        .timeLimit(.minutes(3)), arguments: [1, 2, 3] as [UInt64])
    func seed(seed: UInt64) async throws {
        var settings = ProofSettings(seed: seed)
        settings.operations = 80
        settings.liveDevices = 1
        settings.faults.probabilityStreamCut = 0.1
        let outcome = try await ConvergenceProof.run(settings, timeLimit: .seconds(120))
        #expect(outcome.passed, "\(outcome.report)")
        #expect((outcome.moves["liveStreamedEntries"] ?? 0) > 0, "the live device applied stream entries")
    }
}
