import Foundation
import Logging
import Models
import Protocols

extension SyncEngine {
    enum PullEnd: Equatable {
        case completed
        /// The server answered 410: the cursor is older than its history; bootstrap in this round.
        case bootstrapRequired
    }

    /// §4.9: pages from the stored cursor while `has_more`; each page and its cursor commit together.
    func pull(_ counters: inout RoundCounters) async throws -> PullEnd {
        while true {
            if Task.isCancelled { throw RoundStop.cancelled }
            let since = try readEngineState().cursor
            let page: ChangeFeedResponse
            do {
                page = try await network.getChanges(since: since, limit: configuration.changeFeedPageSize)
                probing = false
            } catch let NetworkError.http(failure) where failure.status == 410 {
                probing = false
                try updateEngineState { $0.bootstrapRequested = true }
                return .bootstrapRequired
            } catch {
                throw failure(of: error)
            }
            if page.hasMore && page.nextCursor <= since { throw RoundStop.error("change feed did not advance") }
            try bindAccount(page.changes.map(\.userId))
            try applyPage(page, &counters)
            notePulled(page.changes.count)
            if !page.hasMore { return .completed }
        }
    }

    /// How a failed pull or bootstrap request ends the round (§4.9 step 2, 410 aside).
    func stop(for error: any Error) -> RoundStop {
        switch PushErrorClass.classify(error, operation: .create) {
        case .cancelled: return .cancelled
        case .transport(let message): return .offline(message)
        case .auth: return .authRequired
        case .rateLimited(let retryAfter):
            startQuietPeriod(retryAfter)
            return .rateLimited(retryAfter: retryAfter ?? 0)
        default:
            return .error((error as? NetworkError)?.description ?? "\(error)")
        }
    }

    /// One unit of work: every entry in order, then `cursor ← max(cursor, next_cursor)`.
    private func applyPage(_ page: ChangeFeedResponse, _ counters: inout RoundCounters) throws {
        try unitOfWork { store in
            var engineState = try store.loadEngineState()
            let fences = try Fences(store: store, engineState: engineState)
            for entry in page.changes { try apply(entry, fences, store, &counters) }
            engineState.cursor = max(engineState.cursor, page.nextCursor)
            try store.saveEngineState(engineState)
            observedEngineState = engineState
        }
    }

    /// The ids pull, bootstrap and geofence refresh must not write (sync-engine §0 "Fence").
    struct Fences {
        /// Deleted locally: `pending_delete_ids` and queued deletes, any state.
        let deleted: Set<String>
        /// With a queued create or update, any state.
        let written: Set<String>

        init(store: any DataStoreProtocol, engineState: EngineState) throws {
            let queue = try store.fetchPendingMutations()
            deleted = engineState.pendingDeleteIds.union(queue.filter { $0.operation == .delete }.map(\.entityId))
            written = Set(queue.filter { $0.operation != .delete }.map(\.entityId))
        }

        func contains(_ id: String) -> Bool { deleted.contains(id) || written.contains(id) }
    }

    /// §4.10: one change entry.
    private func apply(
        _ entry: ChangeEntry, _ fences: Fences, _ store: any DataStoreProtocol, _ counters: inout RoundCounters
    ) throws {
        guard let type = entry.knownEntityType, let operation = entry.knownOperation else { return }
        let id = entry.entityId.lowercased()
        if operation == .delete {
            switch type {
            case .event: try store.deleteEvent(id: id)
            case .eventType: try store.deleteEventType(id: id)
            case .geofence: try store.deleteGeofence(id: id)
            case .propertyDefinition: try store.deletePropertyDefinition(id: id)
            }
            counters.pulled += 1
            return
        }
        guard case .object(let data)? = entry.data, !ChangeApplication.isPartial(data, type: type) else { return }
        if fences.contains(id) {
            counters.fenced += 1
            return
        }
        switch type {
        case .event:
            // An entry that can create the row needs no look-up first (the upsert reads the row anyway).
            guard try ChangeApplication.canCreate(data, type: type) || store.findEvent(id: id) != nil else { return }
            try store.upsertEvent(id: id) { ChangeApplication.apply(data, to: &$0) }
        case .eventType:
            try store.upsertEventType(id: id) { ChangeApplication.apply(data, to: &$0) }
        case .geofence:
            try store.upsertGeofence(id: id) { ChangeApplication.apply(data, to: &$0) }
        case .propertyDefinition:
            guard try ChangeApplication.canCreate(data, type: type) || store.findPropertyDefinition(id: id) != nil
            else {
                return
            }
            let parent = data["event_type_id"]?.stringValue?.lowercased() ?? ""
            try store.upsertPropertyDefinition(id: id, eventTypeId: parent) { ChangeApplication.apply(data, to: &$0) }
        }
        counters.pulled += 1
    }

    // MARK: Geofence refresh (§4.11)

    /// Writes every geofence of the server with all fields, except fenced ones; local-only geofences stay.
    /// Returns the number written.
    func refreshGeofences(_ counters: inout RoundCounters) async throws -> Int {
        let fences = try await network.getGeofences(activeOnly: false)
        try bindAccount(fences.map(\.userId))
        return try unitOfWork { store in
            let fenced = try Fences(store: store, engineState: try store.loadEngineState())
            var written = 0
            for fence in fences {
                let id = fence.id.lowercased()
                if fenced.contains(id) {
                    counters.fenced += 1
                    continue
                }
                try store.upsertGeofence(id: id) { $0.replaceFields(with: fence) }
                written += 1
            }
            return written
        }
    }

    /// The refresh after an incremental pull, once `geofenceRefreshInterval` has passed since the last (S78): its
    /// errors are logged and do not change the round's outcome, but a 429 with `Retry-After` still starts a quiet
    /// period.
    func refreshGeofencesIgnoringErrors(_ counters: inout RoundCounters) async {
        let interval = configuration.geofenceRefreshInterval
        if interval > 0, let last = try? readEngineState().geofencesRefreshedAt,
            now.timeIntervalSince(last) < interval, now >= last
        {
            return
        }
        do {
            _ = try await refreshGeofences(&counters)
            let refreshedAt = now
            try updateEngineState { $0.geofencesRefreshedAt = refreshedAt }
        } catch {
            if case .rateLimited(let retryAfter) = PushErrorClass.classify(error, operation: .create) {
                startQuietPeriod(retryAfter)
            }
            logger.warning("geofence refresh failed", metadata: ["error": "\(error)"])
        }
    }
}
