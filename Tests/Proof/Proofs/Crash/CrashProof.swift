/// Runs one crash trial, bounded in time.
public enum CrashProof {
    /// Runs the trial; one that has not finished after `timeLimit` is reported as a failure (a hang is a finding)
    /// and its task is left behind: callers that see `hung` should exit.
    public static func run(_ settings: CrashSettings, timeLimit: Duration = .seconds(600)) async throws -> CrashOutcome
    {
        let log = LogSink()
        return try await bounded(timeLimit) {
            var outcome = CrashOutcome(
                seed: settings.seed, failure: "hung: no outcome after \(timeLimit)", log: log.lines,
                midTransferKills: 0, kills: 0)
            outcome.hung = true
            return outcome
        } _: {
            try await CrashTrial(settings: settings, log: log).run()
        }
    }
}
