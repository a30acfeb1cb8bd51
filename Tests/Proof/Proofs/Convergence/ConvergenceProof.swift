import Foundation

/// Runs one seed, bounded in time.
public enum ConvergenceProof {
    /// Runs the seed; a run that has not finished after `timeLimit` is reported as a failure with the operations
    /// logged so far (a hang is a finding too), and its task is left behind: callers that see `hung` should exit.
    public static func run(_ settings: ProofSettings, timeLimit: Duration = .seconds(300)) async throws -> ProofOutcome
    {
        let log = LogSink()
        return try await bounded(timeLimit) {
            ProofOutcome(
                seed: settings.seed, divergence: "hung: no outcome after \(timeLimit)", log: log.lines, deadLetters: 0,
                serverEntities: 0, hung: true)
        } _: {
            try await ConvergenceRun(settings: settings, log: log).run()
        }
    }
}
