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

    /// sync-engine §4.9: pages from the stored cursor while `has_more`; each page and its cursor commit together.
    func pull(_ counters: inout SyncCounts) async throws -> PullEnd {
        // R15: where the pull began, and the entities its pages settled, to find a version they pass over.
        var passing = PassingOver(from: try readEngineState())
        while true {
            if Task.isCancelled { throw RoundStop.cancelled }
            let stored = try readEngineState()
            let since = stored.cursor
            // Live mode applied stream entries since the last page: they are not among the entities settled.
            if since != passing.cursor { passing.unbroken = false }
            let page: ChangeFeedResponse
            do {
                page = try await network.getChanges(
                    since: requestPosition(stored), limit: configuration.changeFeedPageSize)
                thisRun.probing = false
            } catch let NetworkError.http(failure) where failure.status == 410 {
                thisRun.probing = false
                try updateEngineState { $0.bootstrapRequested = true }
                return .bootstrapRequired
            } catch {
                throw failure(of: error)
            }
            if page.hasMore && page.nextCursor <= since { throw RoundStop.error("change feed did not advance") }
            try bindAccount(page.changes.map(\.userId))
            // R12: live mode applied stream entries while this page was on its way: drop it, go on from the
            // stored cursor.
            guard try applyPage(page, since: since, &passing, &counters) else {
                passing.unbroken = false
                continue
            }
            notePulled(page.changes.count)
            if !page.hasMore { return .completed }
        }
    }

    /// How a failed pull or bootstrap request ends the round (sync-engine §4.9 step 2, 410 aside). A 429 with
    /// `Retry-After` starts a quiet period; an error of no other class ends it with `otherwise` of its message.
    func stop(for error: any Error, otherwise: (String) -> RoundStop = RoundStop.error) -> RoundStop {
        switch PushErrorClass.classify(error, operation: .create) {
        case .cancelled: return .cancelled
        case .transport(let message): return .offline(message)
        case .auth: return .authRequired
        case .rateLimited(let retryAfter):
            startQuietPeriod(retryAfter)
            return .rateLimited(retryAfter: retryAfter ?? 0)
        default:
            return otherwise((error as? NetworkError)?.description ?? "\(error)")
        }
    }

    /// The stored position as a pull or a stream sends it: with the time of its change only to a server that
    /// checks it (R0, api-v1 §6.5).
    func requestPosition(_ engineState: EngineState) -> FeedPosition {
        engineState.serverFeatures.has(ServerFeatures.sinceCreatedAt)
            ? engineState.position : FeedPosition(cursor: engineState.cursor)
    }

    /// One unit of work: every entry in order, then `cursor ← max(cursor, next_cursor)`, with the time of the change
    /// it names; false (nothing applied) when the stored cursor is no longer the page's `since`.
    private func applyPage(
        _ page: ChangeFeedResponse, since: Int64, _ passing: inout PassingOver, _ counters: inout SyncCounts
    ) throws -> Bool {
        try unitOfWork { store in
            var engineState = try store.loadEngineState()
            guard engineState.cursor == since else { return false }
            try answerCancelledCreates(page.changes.compactMap(\.subject), &engineState, store)
            var fences = try Fences(store: store, engineState: engineState)
            var settled = passing.settled
            defer { passing.settled = settled }
            let judgment = try judgeHeldVersions(in: page.changes, from: passing.start, &settled, engineState, store)
            if try oweGiveBacks(judgment.passedOver, fences, store) {
                fences = try Fences(store: store, engineState: engineState)
            }
            for entry in page.changes {
                if judgment.older.contains(entry.id) {
                    counters.fenced += 1
                } else {
                    try apply(entry, fences, store, &counters)
                }
            }
            if !page.hasMore {
                if passing.unbroken {
                    try oweVersionsMissing(atHeadFrom: passing.start, settled, engineState, fences, store)
                }
                engineState.headCheckStart = nil
                // sync-engine §1.7: the feed from before each cancel to its head holds no copy the server took. An
                // owed entity waits for its read-back, which answers it.
                let owed = Set(try store.owedEntities().map(\.id))
                engineState.cancelledCreateIds.subtract(passing.cancelledAtStart.subtracting(owed))
            } else if engineState.headCheckStart == nil {
                // R15: a pull cut off after this page leaves its check to the next pull, from here.
                engineState.headCheckStart = passing.start
            }
            if page.nextCursor > engineState.cursor {
                engineState.position = page.nextPosition(after: engineState.position)
            }
            passing.cursor = engineState.cursor
            try store.saveEngineState(engineState)
            observedEngineState = engineState
            return true
        }
    }

    /// R15: what `entries` do to the versions this device holds acknowledged since after the device's position
    /// (`PassedOverVersion`): the entities they pass over, to be owed a give-back, so that the fence keeps the entries
    /// off them until the version went back (the round pays the debt after its pull), and the entries of an older
    /// version that come before a held version's echo, not to be written. Only against a server that takes versions
    /// back.
    private func judgeHeldVersions(
        in entries: [ChangeEntry], from start: FeedPosition, _ settled: inout Set<String>, _ engineState: EngineState,
        _ store: any DataStoreProtocol
    ) throws -> PassedOverVersion.Judgment {
        guard checksHeldVersions(from: start, engineState) else { return PassedOverVersion.Judgment() }
        let ids = Set(entries.compactMap { $0.acknowledgedVersion?.id })
        guard !ids.isEmpty else { return PassedOverVersion.Judgment() }
        var held: [String: AcknowledgedVersion] = [:]
        for version in try store.acknowledgedVersions(ids: ids) { held[version.id] = version }
        return PassedOverVersion.judge(entries, held: held, pullingFrom: start, settled: &settled)
    }

    /// R15: whether a pull from `start` watches the versions this device holds: against a server that takes them
    /// back (digest and history), from a position with its time.
    private func checksHeldVersions(from start: FeedPosition, _ engineState: EngineState) -> Bool {
        engineState.serverFeatures.has(ServerFeatures.digest) && start.createdAt != nil && network.serverHistory != nil
    }

    /// R15: at the feed's head, makes each entity owed a give-back whose version, held acknowledged since after the
    /// pull's start, the pull never met (`PassedOverVersion.missingAtTheHead`).
    private func oweVersionsMissing(
        atHeadFrom start: FeedPosition, _ settled: Set<String>, _ engineState: EngineState, _ fences: Fences,
        _ store: any DataStoreProtocol
    ) throws {
        guard checksHeldVersions(from: start, engineState), let startTime = start.createdAt else { return }
        let held = try store.acknowledgedVersions(ids: nil, acknowledgedAfter: startTime)
        try oweGiveBacks(
            PassedOverVersion.missingAtTheHead(held: held, pullingFrom: start, settled: settled), fences, store)
    }

    /// Makes each of `entities` owed a give-back, but those a fence already keeps (a queued create or delete owns
    /// them, or they are owed one); true when it made one.
    @discardableResult
    private func oweGiveBacks(
        _ entities: [(type: MutationEntityType, id: String)], _ fences: Fences, _ store: any DataStoreProtocol
    ) throws -> Bool {
        var owed = false
        for (type, id) in entities where !fences.contains(id) {
            try store.markOwed(type, id: id, reason: .giveBack)
            logger.notice(
                "a version acknowledged to this device is missing from the server's feed; giving it back",
                metadata: ["entity": "\(type.rawValue) \(id)"])
            owed = true
        }
        return owed
    }

    /// Where a pull began, the entities whose held version its pages settled (`PassedOverVersion`), and whether
    /// its pages alone moved the cursor since (no stream entry applied in between, unseen by the check at the head).
    struct PassingOver {
        let start: FeedPosition
        var settled: Set<String> = []
        /// The cursor the last page left, to notice a stream's entries applied between pages.
        var cursor: Int64
        var unbroken = true
        /// The ids whose unsent create was cancelled before the pull began (sync-engine §1.7).
        let cancelledAtStart: Set<String>

        init(from engineState: EngineState) {
            // R15: a pull cut off after pages it applied left its check at the head to this one.
            start = engineState.headCheckStart ?? engineState.position
            cursor = engineState.cursor
            cancelledAtStart = engineState.cancelledCreateIds
        }
    }

    /// sync-engine §1.7: server data of entities whose unsent create a local delete cancelled. A copy of this
    /// database put back from before the create's send counts it unsent while the server took it, so the delete the
    /// user asked for is queued (this run pushes it) instead of the entity being written back; the fences then keep
    /// the data off it. A delete from the server ends the matter too. Call before building the `Fences`.
    func answerCancelledCreates(
        _ entities: [(type: MutationEntityType, id: String, deleted: Bool)], _ engineState: inout EngineState,
        _ store: any DataStoreProtocol
    ) throws {
        guard !engineState.cancelledCreateIds.isEmpty else { return }
        for entity in entities {
            let id = entity.id.lowercased()
            guard engineState.cancelledCreateIds.remove(id) != nil, !entity.deleted else { continue }
            // Written again since (an import of an export that held it): the queue's change is the user's word now.
            guard try store.fetchMutations(entityId: id).isEmpty else { continue }
            _ = try store.enqueueMutation(
                entityType: entity.type, operation: .delete, entityId: id, payload: nil, at: now)
            logger.notice(
                "the server holds an entity whose create this device cancelled before sending it (a copy of its database put back?); deleting it there",
                metadata: ["entity": "\(entity.type.rawValue) \(id)"])
            flight.rerunRequested = true
            liveSession.inbox?.localWrite()
        }
    }

    /// The ids pull, bootstrap, geofence refresh and read-backs must not write (sync-engine §0 "Fence"), and the
    /// debts (R4) those skips and writes change.
    struct Fences {
        /// Deleted locally and pushed: `pending_delete_ids`.
        let pendingDeletes: Set<String>
        /// With a queued delete, any state.
        let queuedDeletes: Set<String>
        /// With a queued create, any state: server data does not touch them.
        let created: Set<String>
        /// With a queued update (any state) and no create: server data is rebased under the update (R3).
        let updates: [String: PendingMutation]
        /// Owed entities (R4), by id.
        let owed: Set<String>
        /// Owed a give-back (R15, S36): until it is paid, nothing the server sends is written over them or recorded
        /// as acknowledged.
        let givingBack: Set<String>

        init(store: any DataStoreProtocol, engineState: EngineState) throws {
            let queue = try store.fetchPendingMutations()
            pendingDeletes = engineState.pendingDeleteIds
            queuedDeletes = Set(queue.filter { $0.operation == .delete }.map(\.entityId))
            created = Set(queue.filter { $0.operation == .create }.map(\.entityId))
            var updates: [String: PendingMutation] = [:]
            for update in queue where update.operation == .update && !created.contains(update.entityId) {
                updates[update.entityId] = update
            }
            self.updates = updates
            let debts = try store.owedEntities()
            owed = Set(debts.map(\.id))
            givingBack = Set(debts.filter { $0.reason == .giveBack }.map(\.id))
        }

        /// Ids with any queued create or update: what a bootstrap keeps whether the snapshot has them or not.
        var written: Set<String> { created.union(updates.keys) }

        /// Every id a fence, a rebase or a debt concerns: server data for any other id is written as it comes.
        var concerned: Set<String> { pendingDeletes.union(queuedDeletes).union(written).union(owed) }

        func contains(_ id: String) -> Bool {
            pendingDeletes.contains(id) || queuedDeletes.contains(id) || created.contains(id) || givingBack.contains(id)
        }

        /// The acknowledgments server data brings that may be recorded: none of an entity owed a give-back, whose
        /// held version is what goes back.
        func recordable(_ versions: [AcknowledgedVersion]) -> [AcknowledgedVersion] {
            givingBack.isEmpty ? versions : versions.filter { !givingBack.contains($0.id.lowercased()) }
        }

        /// The queued update server data for `id` is rebased under (R3), unless a fence skips it first.
        func rebase(_ id: String) -> PendingMutation? { contains(id) ? nil : updates[id] }

        /// R4: a skip that leaves the local copy unreliable makes the entity owed. A queued delete does not: the
        /// entity goes away on the server too (or its delete becomes a visible dead letter).
        func owesAfterSkip(_ id: String) -> Bool {
            guard !givingBack.contains(id) else { return false }
            return created.contains(id) || (pendingDeletes.contains(id) && !queuedDeletes.contains(id))
        }

        /// Skips `id` when fenced: counts it, and makes it owed when the skip calls for a read-back (R4).
        func skip(
            _ type: MutationEntityType, _ id: String, _ store: any DataStoreProtocol, _ counters: inout SyncCounts
        ) throws -> Bool {
            guard contains(id) else { return false }
            counters.fenced += 1
            if owesAfterSkip(id) { try store.markOwed(type, id: id, reason: .fenced) }
            return true
        }

        /// An entry or row written with no fence ends the entity's debt (R4).
        func settle(_ type: MutationEntityType, _ id: String, _ store: any DataStoreProtocol) throws {
            if owed.contains(id) { try store.settleOwed(type, id: id, token: nil) }
        }
    }

    /// sync-engine §4.10: one change entry.
    func apply(
        _ entry: ChangeEntry, _ fences: Fences, _ store: any DataStoreProtocol, _ counters: inout SyncCounts
    ) throws {
        guard let type = entry.knownEntityType, let operation = entry.knownOperation else { return }
        let id = entry.entityId.lowercased()
        // R15: what the server acknowledged, fenced or not: what this device gives back if the server loses it.
        if let version = entry.acknowledgedVersion { try store.recordAcknowledged(fences.recordable([version])) }
        if fences.givingBack.contains(id) {
            counters.fenced += 1
            return
        }
        if operation == .delete {
            try removeLocally(type, id: id, store)
            try fences.settle(type, id, store)
            counters.pulled += 1
            return
        }
        guard case .object(let data)? = entry.data, !ChangeApplication.isPartial(data, type: type) else { return }
        if try fences.skip(type, id, store, &counters) { return }
        let rebase = fences.rebase(id)
        let patch = rebase.flatMap(\.payload).flatMap(Rebase.object)
        switch type {
        case .event:
            // An entry that can create the row needs no look-up first (the upsert reads the row anyway).
            guard try ChangeApplication.canCreate(data, type: type) || store.findEvent(id: id) != nil else { return }
            try store.upsertEvent(id: id) { event in
                ChangeApplication.apply(data, to: &event)
                if let patch { ChangeApplication.apply(patch, to: &event) }
            }
        case .eventType:
            try store.upsertEventType(id: id) { type in
                ChangeApplication.apply(data, to: &type)
                if let patch { ChangeApplication.apply(patch, to: &type) }
            }
        case .geofence:
            try store.upsertGeofence(id: id) { fence in
                ChangeApplication.apply(data, to: &fence)
                if let patch { ChangeApplication.apply(patch, to: &fence) }
            }
        case .propertyDefinition:
            guard try ChangeApplication.canCreate(data, type: type) || store.findPropertyDefinition(id: id) != nil
            else {
                return
            }
            let parent = data["event_type_id"]?.stringValue?.lowercased() ?? ""
            try store.upsertPropertyDefinition(id: id, eventTypeId: parent) { definition in
                ChangeApplication.apply(data, to: &definition)
                if let patch { ChangeApplication.apply(patch, to: &definition) }
            }
        }
        if let rebase {
            try Rebase.keepStatus(of: rebase, store)
        } else {
            try fences.settle(type, id, store)
        }
        counters.pulled += 1
    }

    /// Deletes an entity the server no longer has, with the local cascade (sync-engine §1.4) and what a removed parent
    /// does to the queue: events moved into a removed type get deletes (R7), payloads stop naming it (R8).
    func removeLocally(_ type: MutationEntityType, id: String, _ store: any DataStoreProtocol) throws {
        switch type {
        case .event: try store.deleteEvent(id: id)
        case .eventType:
            try ParentRemoval.deleteEventsMoved(into: id, store, at: now)
            try store.deleteEventType(id: id)
            try ParentRemoval.parentRemoved(.eventType, id: id, store, at: now)
        case .geofence:
            try store.deleteGeofence(id: id)
            try ParentRemoval.parentRemoved(.geofence, id: id, store, at: now)
        case .propertyDefinition: try store.deletePropertyDefinition(id: id)
        }
    }

    // MARK: Geofence refresh (sync-engine §4.11)

    /// Writes every geofence of the server with all fields, except fenced ones; local-only geofences stay.
    /// Returns the number written.
    func refreshGeofences(_ counters: inout SyncCounts) async throws -> Int {
        let fences = try await network.getGeofences(activeOnly: false)
        try bindAccount(fences.map(\.userId))
        return try unitOfWork { store in
            var engineState = try store.loadEngineState()
            if !engineState.cancelledCreateIds.isEmpty {
                try answerCancelledCreates(fences.map { (.geofence, $0.id, false) }, &engineState, store)
                try store.saveEngineState(engineState)
                observedEngineState = engineState
            }
            let fenced = try Fences(store: store, engineState: engineState)
            var written = 0
            for fence in fences {
                let id = fence.id.lowercased()
                if try fenced.skip(.geofence, id, store, &counters) { continue }
                let rebase = fenced.rebase(id)
                try store.upsertGeofence(id: id) { row in
                    row.replaceFields(with: fence)
                    Rebase.apply(rebase, to: &row)
                }
                if let rebase {
                    try Rebase.keepStatus(of: rebase, store)
                } else {
                    try fenced.settle(.geofence, id, store)
                }
                written += 1
            }
            return written
        }
    }

    /// The refresh after an incremental pull, once `geofenceRefreshInterval` has passed since the last (S78): its
    /// errors are logged and do not change the round's outcome, but a 429 with `Retry-After` still starts a quiet
    /// period.
    func refreshGeofencesIgnoringErrors(_ counters: inout SyncCounts) async {
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

extension ChangeEntry {
    /// The entity the entry concerns and whether it deletes it; nil for a kind or an operation this client does not
    /// know.
    var subject: (type: MutationEntityType, id: String, deleted: Bool)? {
        guard let type = knownEntityType, let operation = knownOperation else { return nil }
        return (type, entityId.lowercased(), operation == .delete)
    }
}
