import Foundation
import Models
import Protocols

extension SyncEngine {
    /// The current snapshot (sync-engine §3.5).
    public var snapshot: SyncSnapshot { makeSnapshot() }

    /// A new stream per call: the current snapshot first, then one element per change; the newest 100 are
    /// buffered. It finishes when the consumer cancels or the engine is released.
    public func snapshots() -> AsyncStream<SyncSnapshot> {
        let (stream, continuation) = AsyncStream<SyncSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(100))
        let id = UUID()
        observers[id] = continuation
        continuation.yield(published ?? makeSnapshot())
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    /// The first snapshot — the current one included — that is idle, not running and has nothing pending, or
    /// nil when `timeout` seconds pass on the injected clock. Never starts a sync.
    public func awaitSynced(timeout: TimeInterval) async -> SyncSnapshot? {
        let stream = snapshots()
        return await withTaskGroup(of: SyncSnapshot?.self) { [clock] group in
            group.addTask {
                for await snapshot in stream where Self.isSynced(snapshot) { return snapshot }
                return nil
            }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func isSynced(_ snapshot: SyncSnapshot) -> Bool {
        !snapshot.isRunning && snapshot.state == .idle && snapshot.pendingCount == 0
    }

    func removeObserver(_ id: UUID) {
        observers[id] = nil
    }

    func makeSnapshot() -> SyncSnapshot {
        let now = self.now
        let backoff = CircuitBreaker.backoffRemaining(observedEngineState, now: now)
        let quiet = CircuitBreaker.quietRemaining(observedEngineState, now: now)
        return SyncSnapshot(
            state: state, isRunning: flight.current != nil, pendingCount: observedCounts.pending,
            deadLetterCount: observedCounts.failed, cursor: observedEngineState.cursor,
            lastSuccessAt: observedEngineState.lastSuccessAt, lastReport: lastReport, breakerOpen: backoff > 0,
            retryAfterSeconds: max(quiet, backoff), pulledCount: thisRun.pulled, owedCount: observedOwed,
            live: liveSession.state)
    }

    /// Sends the snapshot to every observer when any field changed.
    func publish() {
        let snapshot = makeSnapshot()
        guard snapshot != published else { return }
        published = snapshot
        for continuation in observers.values { continuation.yield(snapshot) }
    }

    /// Counts rows received during a pull and publishes (progress only: it decides nothing).
    func notePulled(_ rows: Int) {
        guard flight.current != nil else { return }
        thisRun.pulled += rows
        publish()
    }

    /// Changes the state and publishes.
    func enter(_ newState: SyncState) {
        state = newState
        publish()
    }

    /// Re-reads queue sizes (after writes) and publishes.
    func refreshCounts() {
        if let (counts, owed) = try? unitOfWork({ (try $0.countMutations(), try $0.owedEntities().count) }) {
            observedCounts = counts
            observedOwed = owed
        }
        publish()
    }
}
