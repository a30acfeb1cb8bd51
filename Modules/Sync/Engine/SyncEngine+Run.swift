import Foundation
import Models
import Protocols

/// Why a round ended early (sync-engine §4.2–§4.9); thrown inside a round and turned into its outcome.
/// The probe of a round without a health check failed (S25): the round ends as a failed health check (S26).
struct ProbeFailure: Error {
    let stop: RoundStop
}

enum RoundStop: Error, Equatable {
    case offline(String)
    case authRequired
    case rateLimited(retryAfter: TimeInterval)
    case error(String)

    static let cancelled = RoundStop.error("cancelled")
}

/// How a round ended and what it did.
struct RoundResult {
    var outcome: SyncOutcome
    var counters: SyncCounts
    /// The state to publish when the run ends with this round.
    var terminalState: SyncState
}

extension SyncEngine {
    // MARK: Single flight (sync-engine §4.1)

    /// Runs rounds until no rerun is requested and returns the report. A call made while a run is in progress
    /// sends nothing, writes nothing, requests one more round, and returns the report of that run.
    public func performSync() async -> SyncReport {
        if let run = flight.current {
            flight.rerunRequested = true
            flight.joinedCallers += 1
            return await run.value
        }
        let run = Task { await self.runUntilSettled() }
        flight.current = run  // taken before the first await: concurrent callers join this run
        publish()
        return await withTaskCancellationHandler {
            await run.value
        } onCancel: {
            run.cancel()
        }
    }

    private func runUntilSettled() async -> SyncReport {
        let started = now
        thisRun.sent = [:]
        thisRun.pulled = 0
        thisRun.feedWentBack = false
        var report = SyncReport(outcome: .synced(bootstrapped: false))
        while true {
            flight.rerunRequested = false
            let round = await runRound()
            report.outcome = round.outcome
            report.counts += round.counters
            report.message = round.outcome.message
            try? refreshObservation()
            report.pending = observedCounts.pending
            report.deadLetters = observedCounts.failed
            report.owed = observedOwed
            report.cursor = observedEngineState.cursor
            report.durationMs = Int((now.timeIntervalSince(started) * 1000).rounded())
            state = round.terminalState
            lastReport = report
            guard flight.rerunRequested && !Task.isCancelled else { break }
            publish()
        }
        flight.current = nil
        thisRun.sent = [:]
        thisRun.pulled = 0
        publish()
        return report
    }

    // MARK: One round (sync-engine §4.2–§4.12)

    func runRound() async -> RoundResult {
        var counters = SyncCounts()
        let engineState: EngineState
        do {
            engineState = try readEngineState()
        } catch {
            return RoundResult(outcome: .error("\(error)"), counters: counters, terminalState: .error("\(error)"))
        }
        // Gate: the quiet period and the server binding end the round before any request, without history.
        let quiet = CircuitBreaker.quietRemaining(engineState, now: now)
        if quiet > 0 {
            return RoundResult(
                outcome: .rateLimited(retryAfter: quiet), counters: counters,
                terminalState: .rateLimited(retryAfter: quiet, pending: observedCounts.pending))
        }
        if let configured = configuration.serverRoot, let stored = engineState.serverRoot, configured.text != stored {
            let message = SyncEngineError.serverMismatch(configured: configured.text, stored: stored).description
            return RoundResult(outcome: .error(message), counters: counters, terminalState: .error(message))
        }
        // S25: only a round with something to push checks health first; otherwise its first feed page (or, when
        // bootstrapping, its latest-cursor read) is the probe, so a no-op incremental sync is one request.
        let hasLiveMutations: Bool
        do {
            hasLiveMutations = try unitOfWork { try $0.countMutations() }.pending > 0
        } catch {
            return RoundResult(outcome: .error("\(error)"), counters: counters, terminalState: .error("\(error)"))
        }
        var types: [APIEventType] = []
        // R12: while the change stream is open the server is known to answer, and the account is bound: no check.
        let checksHealth = hasLiveMutations && !(liveSession.streamOpen && engineState.accountUserId != nil)
        if checksHealth {
            do {
                types = try await network.getEventTypes()
            } catch {
                let stop = healthCheckStop(error)
                return RoundResult(
                    outcome: outcome(of: stop), counters: counters, terminalState: terminalState(of: stop))
            }
        }
        thisRun.probing = !hasLiveMutations
        defer { thisRun.probing = false }

        let startedAt = now
        enter(.syncing(synced: 0, total: 0))
        var kind = SyncHistoryEntry.Kind.incremental
        var pushSetIds: Set<String> = []
        var breakerLimited = false
        var completedPull = false
        var stop: RoundStop?
        do {
            // sync-engine §1.9 binds on first contact: after the health check here; without one, when the probe
            // answers.
            if checksHealth {
                try bindAccount(types.map(\.userId))
                try noteServerFeatures()
                // R15: a new history first gets back what it lost, before anything is pushed on top of it.
                if let history = try newServerHistory() {
                    try await giveBack(since: history, readingBack: true, unacknowledged: true, &counters)
                }
            }
            // Before this round's push records its acknowledgments: a first sync has nothing to give back.
            let syncedBeforeRound = try syncedBefore()
            var pushSet = try capture()
            if try await giveBackRetriedVersions(among: pushSet, &counters) { pushSet = try capture() }
            pushSetIds = Set(pushSet.map(\.id))
            var feedWentBack = false
            do {
                breakerLimited = try await push(pushSet, &counters)
            } catch is FeedWentBack {
                // Once a run: a server that refuses the position its own bootstrap gave is not one to loop on.
                if thisRun.feedWentBack {
                    throw RoundStop.error(
                        "the server refused this device's writes again after a bootstrap (api-v1 §6.7); try later")
                }
                thisRun.feedWentBack = true
                feedWentBack = true
            }
            enter(.pulling)
            // R15, S36: a version owed back goes first; nothing of the server's is written over it before.
            try await payGiveBackDebts(&counters)
            if feedWentBack {
                // R15: a write was refused unapplied, made from a feed position the server no longer holds (a
                // restore that kept its history): the server first gets back what it lost, the device takes its
                // state, and a new round of this run pushes the queue on top of it.
                kind = .bootstrap
                try await bootstrap(&counters, givingBack: .everything)
                thisRun.sent = [:]
                flight.rerunRequested = true
            } else if try needsBootstrap() {
                kind = .bootstrap
                // R15: a device that synced before gives back its acknowledged versions first (a `sync --full`, a live
                // stream's 410): the bootstrap takes the server's state, which must first hold what the server lost.
                try await bootstrap(&counters, givingBack: syncedBeforeRound ? .acknowledged : nil)
            } else if try await pull(&counters) == .bootstrapRequired {
                kind = .bootstrap
                // R15: a 410 may be a server that went back to a backup: what it lost goes back before the
                // bootstrap takes its state.
                try await bootstrap(&counters, givingBack: .everything)
            } else {
                // R15: a version the pull found passed over goes back before the read-backs write the server's state.
                try await payGiveBackDebts(&counters)
                if let history = try newServerHistory() {
                    try await giveBack(since: history, readingBack: true, unacknowledged: true, &counters)
                }
                await refreshGeofencesIgnoringErrors(&counters)
                await refetchUnfetchedDefinitions(&counters)
            }
            completedPull = true
            // R4: the pull followed every delete this round pushed, so the resurrection fence ends before the
            // read-backs, which re-check the queue instead.
            try updateEngineState { $0.pendingDeleteIds = [] }
            try await readBackOwed(&counters)
        } catch let probe as ProbeFailure {
            return RoundResult(
                outcome: outcome(of: probe.stop), counters: counters, terminalState: terminalState(of: probe.stop))
        } catch let roundStop as RoundStop {
            stop = roundStop
        } catch {
            stop = Task.isCancelled ? .cancelled : .error("\(error)")
        }
        return complete(
            startedAt: startedAt, kind: kind, counters: counters, stop: stop, breakerLimited: breakerLimited,
            completedPull: completedPull, pushSetIds: pushSetIds)
    }

    /// How a failed request ends the round: as a failed health check while it is the round's probe (S25, S26),
    /// otherwise by its class (sync-engine §4.9 step 2).
    func failure(of error: any Error) -> any Error {
        guard thisRun.probing else { return stop(for: error) }
        thisRun.probing = false
        return ProbeFailure(stop: healthCheckStop(error))
    }

    /// sync-engine §4.2 step 3: a failed health check ends the round as a failed request does (`stop(for:)`), except
    /// that any other error counts as being offline.
    private func healthCheckStop(_ error: any Error) -> RoundStop {
        stop(for: error, otherwise: RoundStop.offline)
    }

    /// Saves `quiet_until` for a 429 that carried `Retry-After`.
    func startQuietPeriod(_ retryAfter: TimeInterval?) {
        guard let retryAfter, retryAfter > 0 else { return }
        try? updateEngineState { engineState in
            CircuitBreaker.beginQuietPeriod(
                &engineState, retryAfter: retryAfter, now: now, cap: configuration.retryAfterCap)
        }
    }

    /// sync-engine §1.9: remembers the server and the account on first contact; a different account ends the round.
    func bindAccount(_ userIds: some Sequence<String>) throws {
        try updateEngineState { engineState in
            if engineState.serverRoot == nil, let root = configuration.serverRoot { engineState.serverRoot = root.text }
            // A bootstrap's listing names one user 100 000 times: a repeat of the spelling just checked is skipped,
            // and no lower-cased copy of the whole list is made.
            var checked: String?
            for spelling in userIds where spelling != checked {
                checked = spelling
                let user = spelling.lowercased()
                if user.isEmpty { continue }
                guard let account = engineState.accountUserId else {
                    engineState.accountUserId = user
                    continue
                }
                if account != user {
                    throw RoundStop.error(SyncEngineError.accountMismatch(expected: account, found: user).description)
                }
            }
        }
    }

    /// R0: stores the features of the server's last answer when they changed, and returns what is stored.
    @discardableResult
    func noteServerFeatures() throws -> ServerFeatures {
        guard let seen = network.serverFeatures, seen != observedEngineState.serverFeatures else {
            return try readEngineState().serverFeatures
        }
        return try updateEngineState { engineState in
            engineState.serverFeatures = seen
            return seen
        }
    }

    /// sync-engine §4.3: records every queued delete as a pending delete and returns the push set (the live mutations).
    private func capture() throws -> [PendingMutation] {
        try unitOfWork { store in
            let queue = try store.fetchPendingMutations()
            var engineState = try store.loadEngineState()
            engineState.pendingDeleteIds.formUnion(queue.filter { $0.operation == .delete }.map(\.entityId))
            try store.saveEngineState(engineState)
            observedEngineState = engineState
            return queue.filter(\.isLive)
        }
    }

    /// Whether the device synced before: a cursor, or a version the server acknowledged (a first bootstrap that
    /// failed after its push leaves the cursor at 0, yet what it pushed may be lost to a restore since).
    private func syncedBefore() throws -> Bool {
        try readEngineState().cursor > 0 || unitOfWork { store in try !store.acknowledgedVersions(ids: nil).isEmpty }
    }

    private func needsBootstrap() throws -> Bool {
        let engineState = try readEngineState()
        return engineState.cursor == 0 || engineState.bootstrapRequested
    }

    // MARK: Completion (sync-engine §4.12)

    private func complete(
        startedAt: Date, kind: SyncHistoryEntry.Kind, counters: SyncCounts, stop: RoundStop?, breakerLimited: Bool,
        completedPull: Bool, pushSetIds: Set<String>
    ) -> RoundResult {
        var outcome: SyncOutcome
        var terminal: SyncState
        do {
            (outcome, terminal) = try unitOfWork { store in
                var engineState = try store.loadEngineState()
                let decided = try decide(
                    stop: stop, breakerLimited: breakerLimited, completedPull: completedPull,
                    bootstrapped: kind == .bootstrap,
                    pushSetIds: pushSetIds, engineState: engineState, store: store)
                if completedPull { engineState.pendingDeleteIds = [] }
                if let seen = network.serverFeatures { engineState.serverFeatures = seen }  // R0
                if case .synced = decided.0 { engineState.lastSuccessAt = now }
                if case .partial = decided.0 { engineState.lastSuccessAt = now }
                let finished = now
                try store.appendSyncHistory(
                    SyncHistoryEntry(
                        id: historyIds.generate(at: finished), startedAt: startedAt, finishedAt: finished,
                        durationMs: Int((finished.timeIntervalSince(startedAt) * 1000).rounded()), kind: kind,
                        status: decided.0.historyStatus, outcome: decided.0.name, message: decided.0.message,
                        counts: counters),
                    keepLast: configuration.historyLimit)
                try store.saveEngineState(engineState)
                observedEngineState = engineState
                return decided
            }
        } catch {
            outcome = .error("\(error)")
            terminal = .error("\(error)")
        }
        return RoundResult(outcome: outcome, counters: counters, terminalState: terminal)
    }

    /// The outcome of a round that passed the health check (sync-engine §3.2) and the state to publish for it
    /// (sync-engine §4.12.5).
    private func decide(
        stop: RoundStop?, breakerLimited: Bool, completedPull: Bool, bootstrapped: Bool, pushSetIds: Set<String>,
        engineState: EngineState, store: any DataStoreProtocol
    ) throws -> (SyncOutcome, SyncState) {
        let counts = try store.countMutations()
        if let stop {
            return (outcome(of: stop), terminalState(of: stop, pending: counts.pending))
        }
        if breakerLimited {
            let remaining = CircuitBreaker.backoffRemaining(engineState, now: now)
            return (.rateLimited(retryAfter: remaining), .rateLimited(retryAfter: remaining, pending: counts.pending))
        }
        let queue = try store.fetchPendingMutations()
        // R4: an entity left owed (a read-back that failed, or one still waiting behind its queue) is not converged.
        let owed = try store.owedEntities()
        let unfinished =
            queue.contains { pushSetIds.contains($0.id) } || queue.contains(where: \.isDeadLetter) || !owed.isEmpty
        return (unfinished ? .partial(bootstrapped: bootstrapped) : .synced(bootstrapped: bootstrapped), .idle)
    }

    func outcome(of stop: RoundStop) -> SyncOutcome {
        switch stop {
        case .offline(let message): .offline(message)
        case .authRequired: .authRequired
        case .rateLimited(let retryAfter): .rateLimited(retryAfter: retryAfter)
        case .error(let message): .error(message)
        }
    }

    func terminalState(of stop: RoundStop, pending: Int? = nil) -> SyncState {
        switch stop {
        case .offline: .offline
        case .authRequired: .authRequired
        case .rateLimited(let retryAfter):
            .rateLimited(retryAfter: retryAfter, pending: pending ?? observedCounts.pending)
        case .error(let message): .error(message)
        }
    }
}
