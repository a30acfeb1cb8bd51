/// Single flight (sync-engine §4.1): the run in progress, which callers join instead of starting one.
struct SingleFlight {
    /// The run in progress; joiners await it.
    var current: Task<SyncReport, Never>?
    /// A caller asked for another run while this one was in progress.
    var rerunRequested = false
    /// Callers that joined the run in progress instead of starting one (sync-engine §4.1 step 1).
    var joinedCallers = 0
}

/// What the run in progress has done so far, which its later rounds and its snapshots consult.
struct RunFacts {
    /// Mutation id → the revision this run sent: a later round of the same run does not send it again (S24).
    var sent: [String: Int] = [:]
    /// A write of this run was refused for its feed position (api-v1 §6.7): a second refusal in the same run, after
    /// the bootstrap that took the server's position, ends the round instead of bootstrapping again (R15).
    var feedWentBack = false
    /// True while a round without a health check waits for its first answer: that request is the probe (S25).
    var probing = false
    /// Rows received from the server by the run in progress (snapshots' `pulledCount`).
    var pulled = 0
}
