import ArgumentParser
import ConvergenceProof
import Foundation

/// `trendy-proof`: the randomized convergence proof (docs/reliability.md). Runs seeds against the built
/// `trendy-server` and prints one summary line; on a failure, the seed, its operation log and the divergence.
@main
struct TrendyProofCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trendy-proof",
        abstract: "Random operations on three devices against trendy-server with faults; checks convergence.")

    @Option(help: "Number of seeds to run.") var seeds = 200
    @Option(help: "The first seed; the others follow it.") var firstSeed: UInt64 = 1
    @Option(help: "Random operations per seed before the faults stop.") var operations = 150

    func run() async throws {
        var failures: [ProofOutcome] = []
        var ran = 0
        var deadLetters = 0
        var entities = 0
        let started = ContinuousClock.now
        for seed in firstSeed..<(firstSeed + UInt64(seeds)) {
            var settings = ProofSettings(seed: seed)
            settings.operations = operations
            let outcome = try await ConvergenceProof.run(settings)
            ran += 1
            deadLetters += outcome.deadLetters
            entities += outcome.serverEntities
            if !outcome.passed {
                failures.append(outcome)
                print(outcome.report)
            }
            // A hung run's task cannot be taken back: report what ran and stop here.
            if outcome.hung { break }
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        print(
            "convergence: \(ran - failures.count) passed, \(failures.count) failed "
                + "(seeds \(firstSeed)…\(firstSeed + UInt64(seeds) - 1), \(operations) operations each, "
                + "\(entities) server entities, \(deadLetters) dead letters, \(seconds) s)")
        if !failures.isEmpty {
            print("reproduce: trendy-proof --seeds 1 --operations \(operations) --first-seed \(failures[0].seed)")
            // Exit at once: a hung run's task would keep an orderly shutdown waiting.
            Foundation.exit(1)
        }
    }
}
