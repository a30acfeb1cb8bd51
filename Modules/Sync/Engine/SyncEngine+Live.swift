import Foundation
import Logging
import Models
import Protocols

extension SyncEngine {
    // MARK: Live mode (sync-engine R12)

    /// Starts live mode: a round, then the server's change stream from the stored cursor, each entry (or each burst
    /// that arrived together, at most `changeFeedPageSize`) applied in one unit of work with the cursor; a local
    /// write — by this process at once (or right after the round in progress, with the writes made meanwhile), by
    /// another process on the same database within R12's 100 ms (the observation polls every 50 ms); reconnects after a
    /// jittered backoff; polling every `live.pollInterval` where the server has no stream. Idempotent. Live mode is
    /// not a run: `isRunning` is true only during its rounds; `snapshot.live` says where it stands.
    ///
    /// `roundGate`, when given, is awaited before each round and what it returns is held until the round ends:
    /// `trendyctl` takes its cross-process sync lock there (sync-engine §3.7: every round takes the lock and releases
    /// it after). A gate that returns nil (it was cancelled) skips the round.
    public func startLive(roundGate: (@Sendable () async -> (any Sendable)?)? = nil) {
        guard liveSession.task == nil else { return }
        self.roundGate = roundGate
        let inbox = LiveInbox()
        liveSession.inbox = inbox
        liveSession.task = Task { await self.runLive(inbox) }
    }

    /// Ends live mode and waits for its loop: a round in progress is cancelled (nothing half-applied), the stream
    /// closes.
    public func stopLive() async {
        guard let task = liveSession.task else { return }
        liveSession.inbox?.stop()
        task.cancel()
        await task.value
    }

    /// What live mode does, as it does it: each round's report, each applied burst, and its end. A new stream per
    /// call; the newest 1000 are buffered.
    public func liveActivity() -> AsyncStream<LiveActivity> {
        let (stream, continuation) = AsyncStream<LiveActivity>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = UUID()
        liveSession.watchers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeLiveWatcher(id) }
        }
        return stream
    }

    func removeLiveWatcher(_ id: UUID) { liveSession.watchers[id] = nil }

    private func emit(_ activity: LiveActivity) {
        for watcher in liveSession.watchers.values { watcher.yield(activity) }
    }

    private func enterLive(_ state: LiveState) {
        guard liveSession.state != state else { return }
        liveSession.state = state
        publish()
    }

    /// How the stream ended, and what the loop does next.
    private enum StreamEnd {
        /// Reconnect after the backoff, running a round first.
        case reconnectAfterBackoff
        /// Reconnect at once (after `reauth`, or a `reset` whose round bootstraps).
        case reconnectNow
        /// Poll until `seconds` passed (429 `stream_limit`), or for good (no stream on this server).
        case poll(seconds: TimeInterval?)
        /// End live mode.
        case end(SyncOutcome)
    }

    private func runLive(_ inbox: LiveInbox) async {
        var backoff = LiveBackoff(base: configuration.live.baseBackoff, cap: configuration.live.maxBackoff)
        let watcher = watchOtherWriters(inbox)
        defer {
            watcher?.cancel()
            inbox.cancelTimer()
            liveSession.task = nil
            liveSession.inbox = nil
            liveSession.state = .off
            publish()
        }
        var pollUntil: Date?
        var streamMissing = false
        /// The fallback to polling live mode is in, announced once (`LiveActivity.polling`) until the stream opens.
        var fellBack: LivePollReason?
        /// A push the breaker holds: retried when it ends, while the stream goes on (R12).
        var pushHeld: TimeInterval?
        while !Task.isCancelled {
            pushHeld = nil
            // A round first: it pushes, pulls what the stream would have sent while closed, or bootstraps.
            let report = await liveRound()
            switch report.outcome {
            case .authRequired:
                emit(.ended(report.outcome))
                return
            case .offline, .error:
                guard await wait(backoff.next(), inbox) else { return }
                continue
            case .rateLimited(let retryAfter):
                // The quiet period holds pushes and reconnects; the breaker holds only pushes.
                let quiet = CircuitBreaker.quietRemaining(observedEngineState, now: now)
                if quiet > 0 || CircuitBreaker.backoffRemaining(observedEngineState, now: now) == 0 {
                    guard await wait(max(retryAfter, configuration.live.baseBackoff), inbox) else { return }
                    continue
                }
                pushHeld = retryAfter
            case .synced, .partial:
                backoff.reset()
            }
            let features = (try? readEngineState().serverFeatures) ?? ServerFeatures()
            if streamMissing || !features.has(ServerFeatures.stream) || (pollUntil.map { now < $0 } ?? false) {
                if fellBack == nil, streamMissing || !features.has(ServerFeatures.stream) {
                    fellBack = .noStream
                    emit(.polling(.noStream))
                }
                enterLive(.polling)
                let interval = pollUntil.map { $0.timeIntervalSince(now) } ?? configuration.live.pollInterval
                guard await wait(max(interval, 0), inbox, wakeOnWrite: true) else { return }
                pollUntil = nil
                continue
            }
            switch await stream(inbox, &backoff, pushHeld: pushHeld, afterFallback: &fellBack) {
            case .reconnectNow: continue
            case .reconnectAfterBackoff:
                guard await wait(backoff.next(), inbox) else { return }
            case .poll(let seconds):
                if let seconds { pollUntil = now.addingTimeInterval(seconds) } else { streamMissing = true }
                if fellBack == nil {
                    let reason = seconds.map { LivePollReason.streamLimit(retryAfter: $0) } ?? .noStream
                    fellBack = reason
                    emit(.polling(reason))
                }
            case .end(let outcome):
                emit(.ended(outcome))
                return
            }
        }
    }

    /// A round of live mode: `performSync`, with the live queue noted first so that only later writes wake the
    /// loop again.
    private func liveRound() async -> SyncReport {
        let lease = await roundGate?()
        if roundGate != nil && lease == nil { return SyncReport(outcome: .error("stopped")) }
        if let queue = try? unitOfWork({ try $0.liveMutationRevisions() }) { liveSession.handled = queue }
        let report = await performSync()
        withExtendedLifetime(lease) {}
        liveSession.cursor = try? readEngineState().cursor
        emit(.round(report))
        return report
    }

    /// Waits `seconds` (in `waiting`, or the current state when `wakeOnWrite`); a write by another writer ends the
    /// wait early when `wakeOnWrite`. False when live mode stopped.
    private func wait(_ seconds: TimeInterval, _ inbox: LiveInbox, wakeOnWrite: Bool = false) async -> Bool {
        if !wakeOnWrite { enterLive(.waiting) }
        inbox.setTimer(after: seconds, clock: clock)
        while true {
            let contents = await inbox.next()
            if contents.stopped || Task.isCancelled { return false }
            if contents.timerFired || (wakeOnWrite && contents.localWrite) {
                inbox.cancelTimer()
                return true
            }
        }
    }

    /// Holds the stream open until it ends; applies what it brings and runs a round for each local write. When it
    /// opens after a fallback to polling, says so (`LiveActivity.streaming`) and clears `afterFallback`.
    private func stream(
        _ inbox: LiveInbox, _ backoff: inout LiveBackoff, pushHeld: TimeInterval? = nil,
        afterFallback: inout LivePollReason?
    ) async -> StreamEnd {
        enterLive(.connecting)
        let stored = (try? readEngineState()) ?? EngineState()
        let position = requestPosition(stored)
        liveSession.cursor = position.cursor
        let network = self.network
        let generation = inbox.beginStream()
        let reader = Task {
            do {
                for try await event in network.changeStream(from: position) { inbox.put(event, generation: generation) }
                inbox.streamEnded(nil, generation: generation)
            } catch {
                inbox.streamEnded(error, generation: generation)
            }
        }
        defer {
            reader.cancel()
            liveSession.streamOpen = false
        }
        var retryScheduled = false
        if let pushHeld {
            inbox.setTimer(after: pushHeld, clock: clock)
            retryScheduled = true
        }
        while true {
            let contents = await inbox.next()
            if contents.stopped || Task.isCancelled { return .end(.error("stopped")) }
            var burst: [ChangeEntry] = []
            for event in contents.events {
                switch event {
                case .opened:
                    liveSession.streamOpen = true
                    enterLive(.streaming)
                    if afterFallback != nil {
                        afterFallback = nil
                        emit(.streaming)
                    }
                case .change(let entry):
                    burst.append(entry)
                    if burst.count >= configuration.changeFeedPageSize {
                        if let end = applyLive(burst) { return end }
                        burst = []
                    }
                case .reset:
                    if let end = applyLive(burst) { return end }
                    try? updateEngineState { $0.bootstrapRequested = true }
                    return .reconnectNow
                case .reauth:
                    if let end = applyLive(burst) { return end }
                    return .reconnectNow
                }
            }
            if let end = applyLive(burst) { return end }
            if contents.rewound { return .reconnectNow }
            if contents.streamEnded { return streamEnd(contents.streamError) }
            if contents.localWrite || (contents.timerFired && retryScheduled) {
                retryScheduled = false
                // At once; writes made while a round runs go out together in the next one, right after it.
                let report = await liveRound()
                switch report.outcome {
                case .authRequired: return .end(report.outcome)
                case .synced: backoff.reset()
                case .partial, .offline, .error, .rateLimited:
                    // What is still queued goes again after the backoff (the quiet period or the breaker, when
                    // longer), without closing the stream.
                    if report.pending > 0 {
                        let hold = max(backoff.next(), snapshot.retryAfterSeconds)
                        inbox.setTimer(after: hold, clock: clock)
                        retryScheduled = true
                    }
                }
            }
        }
    }

    /// Applies stream entries in one unit of work with the cursor (sync-engine §4.10 and R3, as a pull page); entries
    /// at or below the stored cursor are dropped. Nil, or how the stream ends when the entries cannot be applied.
    private func applyLive(_ entries: [ChangeEntry]) -> StreamEnd? {
        guard !entries.isEmpty else { return nil }
        do {
            try bindAccount(entries.map(\.userId))
            var counters = SyncCounts()
            let known = liveSession.cursor ?? 0
            let applied = try unitOfWork { store -> [ChangeEntry]? in
                var engineState = try store.loadEngineState()
                // Another process's bootstrap moved the cursor back under the stream: its snapshot may be older
                // than entries this stream applied, so they come again from the stored cursor.
                if engineState.cursor < known { return nil }
                let fresh = entries.filter { $0.id > engineState.cursor }
                guard let last = fresh.last else { return [] }
                try answerCancelledCreates(fresh.compactMap(\.subject), &engineState, store)
                let fences = try Fences(store: store, engineState: engineState)
                for entry in fresh { try apply(entry, fences, store, &counters) }
                engineState.position = last.position
                try store.saveEngineState(engineState)
                observedEngineState = engineState
                return fresh
            }
            guard let applied else { return .reconnectNow }
            guard let newest = applied.last else { return nil }
            liveSession.cursor = newest.id
            try? refreshObservation()
            publish()
            let latency = newest.createdAt.map { Int((now.timeIntervalSince($0) * 1000).rounded()) }
            emit(.applied(changes: applied.count, cursor: newest.id, latencyMs: latency.map { max(0, $0) }))
            return nil
        } catch let stop as RoundStop {
            return .end(outcome(of: stop))
        } catch {
            // A store that cannot take the entries now (busy): reconnect from the stored cursor later.
            logger.warning("live entries not applied", metadata: ["error": "\(error)"])
            return .reconnectAfterBackoff
        }
    }

    /// What the end of the stream means (R12).
    private func streamEnd(_ error: (any Error)?) -> StreamEnd {
        guard let error else { return .reconnectAfterBackoff }
        guard case .http(let failure) = error as? NetworkError else { return .reconnectAfterBackoff }
        switch failure.status {
        case 401: return .end(.authRequired)
        case 404: return .poll(seconds: nil)
        case 410:
            try? updateEngineState { $0.bootstrapRequested = true }
            return .reconnectNow
        case 429 where failure.problemType == "stream_limit":
            return .poll(seconds: failure.retryAfter ?? configuration.live.pollInterval)
        case 429:
            startQuietPeriod(failure.retryAfter)
            return .reconnectAfterBackoff
        default: return .reconnectAfterBackoff
        }
    }

    // MARK: Other writers (R12, R13)

    /// Watches the live queue through the factory's observation (R13) and wakes the loop when it holds a mutation
    /// the last live round did not see: a write by this process or another. The engine's own commits (completing,
    /// failing, applying) add none. Nil when the factory cannot observe; then only rounds and the stream move.
    private func watchOtherWriters(_ inbox: LiveInbox) -> Task<Void, Never>? {
        guard let observing = stores as? any LocalDataObserving else { return nil }
        let queue = observing.observe { store in
            let state = try store.loadEngineState()
            return LiveObservation(
                queue: try store.liveMutationRevisions(), cursor: state.cursor,
                lastSuccessAt: state.lastSuccessAt)
        }
        return Task { [weak self] in
            do {
                for try await observed in queue {
                    guard let self else { return }
                    if await !Self.handled(observed.queue, by: self.liveSession.handled) { inbox.localWrite() }
                    if let known = await self.liveSession.cursor, observed.cursor < known {
                        await self.checkRewound(inbox)
                    }
                }
            } catch {
                self?.logger.warning("watching the queue failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// An observation can arrive after the stream moved on (it was read before the last burst committed): only a
    /// stored cursor below the stream's, read now, means another process moved it back.
    private func checkRewound(_ inbox: LiveInbox) {
        guard let known = liveSession.cursor, let stored = try? readEngineState().cursor, stored < known else { return }
        inbox.rewound()
    }

    /// What live mode watches in the database: the live queue, the stored cursor, and when a round last
    /// succeeded. Equal observations are yielded once (R13), so a bootstrap in another process that sets the cursor
    /// back to where it was before this engine's last burst would look unchanged if the burst and the bootstrap
    /// committed between two reads; the bootstrap's new `lastSuccessAt` makes it a change all the same.
    struct LiveObservation: Equatable, Sendable {
        /// The live queue: each mutation's revision by id.
        let queue: [String: Int]
        let cursor: Int64
        let lastSuccessAt: Date?
    }

    /// Whether a round already saw every live mutation at its revision: the engine's own commits only remove
    /// mutations (completing) or take them out of the live queue (failing).
    static func handled(_ queue: [String: Int], by handled: [String: Int]) -> Bool {
        queue.allSatisfy { handled[$0.key] == $0.value }
    }
}

/// The reconnect backoff of R12: `base` doubling to `cap`, each wait jittered to between half and all of it, reset
/// by a successful round.
struct LiveBackoff {
    let base: TimeInterval
    let cap: TimeInterval
    private var current: TimeInterval

    init(base: TimeInterval, cap: TimeInterval) {
        self.base = base
        self.cap = max(cap, base)
        current = base
    }

    mutating func next() -> TimeInterval {
        let wait = current * Double.random(in: 0.5...1)
        current = min(current * 2, cap)
        return wait
    }

    mutating func reset() { current = base }
}
