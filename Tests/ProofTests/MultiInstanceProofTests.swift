import Proofs
import Testing
import TrendyServerTesting

/// The convergence run of `make proof` with two `trendy-server` instances on one PostgreSQL schema, each device
/// reaching them through a balancer lane that moves between instances. `make test-postgres`
/// runs it; without PostgreSQL it is skipped and says why.
@Suite("Convergence proof on two instances (short)")
struct MultiInstanceProofTests {
    @Test(
        "sync-engine §9 three devices moved between two instances on PostgreSQL, with faults on each, converge",
        .enabled(if: LiveTrendyServer.postgresTestURL() != nil, "\(LiveTrendyServer.postgresUnavailableReason)"),
        .timeLimit(.minutes(3)), arguments: [1, 2, 3] as [UInt64])
    func seed(seed: UInt64) async throws {
        var settings = ProofSettings(seed: seed)
        settings.operations = 80
        settings.instances = 2
        let outcome = try await ConvergenceProof.run(settings, timeLimit: .seconds(120))
        #expect(outcome.passed, "\(outcome.report)")
        #expect(outcome.serverEntities > 0, "the run created data")
        // Point 5: the devices really went through both instances, and moved between them.
        #expect(outcome.connectionsPerInstance.count == 2 && outcome.connectionsPerInstance.allSatisfy { $0 > 0 })
        #expect(outcome.switches > 0, "devices were moved between instances")
    }
}
