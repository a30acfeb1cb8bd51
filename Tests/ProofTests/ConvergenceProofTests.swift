import Proofs
import Testing

/// The short version of `make proof`: a few seeds of the randomized convergence run (docs/reliability.md).
@Suite("Convergence proof (short)")
struct ConvergenceProofTests {
    @Test(
        "sync-engine §9 random operations on three devices with faults converge: no duplicate, resurrection or lost write",
        .timeLimit(.minutes(3)), arguments: [1, 2, 3, 4, 5] as [UInt64])
    func seed(seed: UInt64) async throws {
        var settings = ProofSettings(seed: seed)
        settings.operations = 80
        let outcome = try await ConvergenceProof.run(settings, timeLimit: .seconds(120))
        #expect(outcome.passed, "\(outcome.report)")
        #expect(outcome.serverEntities > 0, "the run created data")
    }
}
