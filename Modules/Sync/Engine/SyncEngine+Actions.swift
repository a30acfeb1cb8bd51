import Foundation
import Models
import Protocols

// The engine API besides `performSync` (sync-engine §3.6, §5.3, §6.1, §6.3).
extension SyncEngine {
    /// DS1 in its own unit of work, then a snapshot. Never starts a sync.
    @discardableResult
    public func queueMutation(
        entityType: MutationEntityType, operation: MutationOperation, entityId: String, payload: Data?
    ) async throws -> EnqueueResult {
        let result = try unitOfWork { store in
            try store.enqueueMutation(
                entityType: entityType, operation: operation, entityId: entityId, payload: payload, at: now)
        }
        refreshCounts()
        return result
    }

    /// The queue in order; nil returns both states.
    public func mutations(state filter: MutationState? = nil) async throws -> [PendingMutation] {
        try unitOfWork { try $0.fetchPendingMutations() }.filter { filter == nil || $0.state == filter }
    }

    /// sync-engine §6.3: dead letters back to live with `attempts` 0 and a new key (all of them when `ids` is nil).
    /// Returns the number revived.
    @discardableResult
    public func retryDeadLetters(ids: [String]? = nil) async throws -> Int {
        let revived = try unitOfWork { store in
            let targets = try ids ?? store.fetchPendingMutations().filter(\.isDeadLetter).map(\.id)
            return try targets.filter { try store.reviveMutation(id: $0, at: now) }.count
        }
        refreshCounts()
        return revived
    }

    /// sync-engine §6.3 with R9: removes mutations, live or dead (all when `ids` is nil), and marks their entities
    /// `failed`. The entity of a discarded update or delete, or of a discarded create that was sent, becomes owed, so
    /// the next round restores the server's copy or removes the row; a discarded create that was never sent removes its
    /// row at once, with the local cascade. Discarding every mutation also resets the breaker fully. Returns the number
    /// removed.
    @discardableResult
    public func discardMutations(ids: [String]? = nil) async throws -> Int {
        let removed = try unitOfWork { store in
            let queue = try store.fetchPendingMutations()
            // Creates last: removing a create's row may queue work for the rows that named it (R7, R8), which must not
            // touch mutations this same call discards.
            let targets = (ids.map { wanted in queue.filter { wanted.contains($0.id) } } ?? queue)
                .sorted { ($0.operation == .create ? 1 : 0) < ($1.operation == .create ? 1 : 0) }
            var engineState = try store.loadEngineState()
            for mutation in targets {
                try store.deletePendingMutation(mutation)
                try store.setSyncStatus(.failed, entityType: mutation.entityType, id: mutation.entityId)
                if mutation.operation == .create && !mutation.isSent {
                    try removeLocally(mutation.entityType, id: mutation.entityId, store)
                } else {
                    try store.markOwed(mutation.entityType, id: mutation.entityId, reason: .discarded)
                }
                if mutation.operation == .delete { engineState.pendingDeleteIds.remove(mutation.entityId) }
            }
            if ids == nil { CircuitBreaker.reset(&engineState, success: true) }
            try store.saveEngineState(engineState)
            observedEngineState = engineState
            return targets.count
        }
        refreshCounts()
        return removed
    }

    /// sync-engine §6.1: counter, hint, backoff and quiet period cleared, multiplier kept; `idle` when no run is in
    /// progress.
    public func resetCircuitBreaker() async {
        try? updateEngineState { CircuitBreaker.manualReset(&$0) }
        if flight.current == nil { state = .idle }
        publish()
    }

    /// True while the breaker's backoff lasts (`breaker_backoff_until > now`).
    public var isCircuitBreakerTripped: Bool {
        get throws { CircuitBreaker.backoffRemaining(try readEngineState(), now: now) > 0 }
    }

    /// Seconds of breaker backoff left.
    public var circuitBreakerBackoffRemaining: TimeInterval {
        get throws { CircuitBreaker.backoffRemaining(try readEngineState(), now: now) }
    }

    /// sync-engine §5.3: saves `bootstrap_requested` (the cursor untouched), then syncs. Joining a run in progress
    /// makes its extra round bootstrap; if the bootstrap fails, the flag survives for the next round.
    public func forceFullResync() async -> SyncReport {
        do {
            try updateEngineState { $0.bootstrapRequested = true }
        } catch {
            return SyncReport(outcome: .error("\(error)"), message: "\(error)")
        }
        return await performSync()
    }

    /// sync-engine §5.3: waits for a run in progress (without asking for another), then stores the server's latest
    /// cursor, even with pending mutations. On error it throws and leaves the cursor unchanged.
    public func skipToLatestCursor() async throws -> Int64 {
        if let run = flight.current { _ = await run.value }
        try checkMayContactServer()
        let latest = try await network.getLatestPosition()
        try updateEngineState { $0.position = latest }
        publish()
        return latest.cursor
    }

    /// sync-engine §4.11 on demand: refreshes geofences and returns how many were written; throws instead of ignoring
    /// errors.
    public func syncGeofences() async throws -> Int {
        try checkMayContactServer()
        var counters = SyncCounts()
        do {
            return try await refreshGeofences(&counters)
        } catch {
            if case .rateLimited(let retryAfter) = PushErrorClass.classify(error, operation: .create) {
                startQuietPeriod(retryAfter)
            }
            throw error
        }
    }

    /// History rows, newest first (DS11).
    public func history(limit: Int = 100) async throws -> [SyncHistoryEntry] {
        try unitOfWork { try $0.fetchSyncHistory(limit: limit) }
    }

    /// The quiet period and the server binding hold for every operation that talks to the server.
    private func checkMayContactServer() throws {
        let engineState = try readEngineState()
        let quiet = CircuitBreaker.quietRemaining(engineState, now: now)
        if quiet > 0 { throw SyncEngineError.quietPeriod(remaining: quiet) }
        if let configured = configuration.serverRoot, let stored = engineState.serverRoot, configured.text != stored {
            throw SyncEngineError.serverMismatch(configured: configured.text, stored: stored)
        }
    }
}
