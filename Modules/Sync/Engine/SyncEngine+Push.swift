import Foundation
import Models
import Protocols

extension SyncEngine {
    /// sync-engine §4.4: sends the push set by phase and unit. Returns whether the round is breaker-limited; throws
    /// `RoundStop` for a transport error, a 401, a 429 with `Retry-After` or cancellation.
    ///
    /// Mutations already sent at their current revision by an earlier round of this run are left out (S24); their
    /// creates still count as open, so their children keep waiting.
    func push(_ captured: [PendingMutation], _ counters: inout SyncCounts) async throws -> Bool {
        let pushSet = captured.filter { thisRun.sent[$0.id] != $0.revision }
        guard !pushSet.isEmpty else { return false }
        let engineState = try readEngineState()
        // R15: every write says where in the feed it was made, so a server restored since refuses it unapplied.
        network.setWritePosition(
            engineState.cursor > 0 && engineState.serverFeatures.has(ServerFeatures.sinceCreatedAt)
                ? engineState.position : nil)
        var run = PushRun(
            total: pushSet.count, openCreates: Set(captured.filter { $0.operation == .create }.map(\.entityId)),
            untouched: Set(pushSet.map(\.id)), probe: false)
        for update in pushSet where update.operation == .update && update.entityType == .event {
            // R1: only a move carries `event_type_id`.
            if let type = MutationPayload.id(in: update.payload, key: "event_type_id") {
                run.openEventUpdates[update.id] = type
            }
        }
        switch CircuitBreaker.status(engineState, now: now) {
        case .open(let until):
            counters.deferred += pushSet.count
            enter(.rateLimited(retryAfter: until.timeIntervalSince(now), pending: observedCounts.pending))
            return true
        case .halfOpen:
            run.probe = true
        case .closed:
            break
        }
        enter(.syncing(synced: 0, total: run.total))
        do {
            for (phase, mutations) in PushPlan.phases(of: pushSet) {
                if phase == .eventCreates {
                    try await pushEventCreates(mutations, &run, &counters)
                } else {
                    for mutation in mutations { try await pushSingle(mutation, &run, &counters) }
                }
            }
        } catch is BreakerTripped {
            counters.deferred += run.untouched.count
            return true
        } catch {
            counters.deferred += run.untouched.count
            throw error
        }
        return false
    }

    // MARK: Unit boundaries

    /// Trips the breaker when the counter reached the threshold (sync-engine §4.4.4.1).
    func crossUnitBoundary(_ run: inout PushRun) throws {
        if Task.isCancelled { throw RoundStop.cancelled }
        let tripped = try updateEngineState { engineState -> TimeInterval? in
            guard engineState.breakerConsecutive429 >= configuration.breakerThreshold else { return nil }
            return CircuitBreaker.trip(&engineState, now: now, configuration: configuration)
        }
        if let backoff = tripped {
            enter(.rateLimited(retryAfter: backoff, pending: observedCounts.pending))
            throw BreakerTripped()
        }
    }

    /// sync-engine §4.4.4.2: deferred when its entity, or a parent it names, still has an open create.
    func isDeferred(_ mutation: PendingMutation, _ run: PushRun) -> Bool {
        if mutation.operation != .create && run.openCreates.contains(mutation.entityId) { return true }
        if mutation.operation == .delete, mutation.entityType == .eventType,
            run.openEventUpdates.values.contains(where: { $0 != mutation.entityId.lowercased() })
        {
            return true  // R7: an event update not done yet may move an event out of this type
        }
        return PushPlan.parentIds(of: mutation).contains { run.openCreates.contains($0) }
    }

    func deferMutation(_ mutation: PendingMutation, _ run: inout PushRun, _ counters: inout SyncCounts) {
        counters.deferred += 1
        run.untouched.remove(mutation.id)
    }

    /// sync-engine §4.4.4.3: commits `first_sent_at` and returns the rows as they will be sent; rows gone or no longer
    /// live count as processed.
    func claim(_ mutations: [PendingMutation], _ run: inout PushRun) throws -> [PendingMutation] {
        let features = observedEngineState.serverFeatures
        let claimed = try unitOfWork { store in
            if !features.has(ServerFeatures.propertiesPatch) {
                for mutation in mutations where mutation.operation == .update {
                    try PatchForOriginal.rewrite(mutation.id, entityId: mutation.entityId, store, at: now)
                }
            }
            return try store.claimMutations(ids: mutations.map(\.id), at: now)
        }
        for mutation in mutations { run.untouched.remove(mutation.id) }
        for row in claimed { thisRun.sent[row.id] = row.revision }
        run.recorded += mutations.count - claimed.count
        return claimed
    }

    func publishProgress(_ run: PushRun) {
        enter(.syncing(synced: min(run.recorded, run.total), total: run.total))
    }

    // MARK: Single requests (phases 1–3, 5, 6)

    private func pushSingle(
        _ mutation: PendingMutation, _ run: inout PushRun, _ counters: inout SyncCounts
    )
        async throws
    {
        try crossUnitBoundary(&run)
        if isDeferred(mutation, run) {
            deferMutation(mutation, &run, &counters)
            return
        }
        guard var row = try claim([mutation], &run).first else {
            publishProgress(run)
            return
        }
        if let earlier = row.earlierSend {
            guard let next = try await settleEarlierSend(earlier, of: row, &run, &counters) else { return }
            row = next
        }
        let request: PushRequest
        do {
            request = try PushRequest(row)
        } catch {
            try record([(row, .counted("invalid payload: \(error)"))], breaker: .none, &run, &counters)
            return
        }
        let resolution: Resolution
        let effect: BreakerEffect
        var refused = false
        var sent: SentAnswer?
        do {
            // A create sent before, its answer lost, says when it was queued (sync-engine R15, api-v1 §7).
            let queuedAt = mutation.isSent && row.operation == .create ? row.createdAt : nil
            let answer = try await send(request, row, queuedAt: queuedAt)
            (resolution, effect) = (answer.replayed ? .completedOwed(.replayed) : .completed, .reset(success: true))
            sent = answer
        } catch {
            (resolution, effect) = try await resolve(error, row, &run, &counters)
            refused = Self.isRefusal(error)
            // A delete repeated after a lost answer: the 404 `deleted` says when the first one was made. A delete of
            // an id the server never knew (a restore lost it) is remembered there, and its `not_found` says when: an
            // acknowledged delete to give back if a restore loses that too (api-v1 §6.6).
            if row.operation == .delete, case .http(let failure) = error as? NetworkError, failure.status == 404,
                let deletedAt = failure.deletedAt
            {
                sent = SentAnswer(replayed: false, stored: nil, deletedAt: deletedAt)
            }
        }
        try record([(row, resolution)], breaker: effect, &run, &counters)
        if let sent { try await acknowledge(sent, of: row, &counters) }
        if refused { try unitOfWork { store in try Self.forgetSend(of: row, store) } }
    }

    /// Takes what the server acknowledged (`takeAcknowledged`). An update answer holding other values than the
    /// version this device holds acknowledged, in fields it did not send, is another device's later edit or a server
    /// put back from a copy that lost this device's version: the server's newer-only rule tells which, so that
    /// version goes back first, then is read back (R15).
    func acknowledge(_ answer: SentAnswer, of row: PendingMutation, _ counters: inout SyncCounts) async throws {
        guard try !takeAcknowledged(answer, of: row) else { return }
        try await payGiveBackDebts(&counters)
    }

    /// R15: what the server acknowledged becomes the device's copy. An update's answer is the entity merged field by
    /// field with other devices' edits (R1), so the row takes it — the keys of a patch queued since on top (R3) —
    /// unless a newer acknowledgment arrived meanwhile (a stream's entry). The device then holds exactly the
    /// version whose time it records, which is what it gives back if the server loses it. A replayed answer is such
    /// a version too, of its time (its entity is read back all the same, R5). A delete's time is the one the server
    /// says (N14); only a server that does not say leaves ours, until the feed's entry brings the server's.
    ///
    /// False, the row and its acknowledgment untouched, when a fresh update answer changes a field of a version this
    /// device holds acknowledged that neither the update nor a patch queued since sets, on a server that takes
    /// give-backs: the version goes back first (the caller), or the answer would put the server's lost state on it.
    private func takeAcknowledged(_ answer: SentAnswer, of row: PendingMutation) throws -> Bool {
        try unitOfWork { store in
            guard let stored = answer.stored, let version = stored.acknowledgedVersion else {
                if row.operation == .delete {
                    try store.recordAcknowledged([
                        AcknowledgedVersion(
                            entityType: row.entityType, id: row.entityId, acknowledgedAt: answer.deletedAt ?? now,
                            deleted: true)
                    ])
                }
                return true
            }
            let id = row.entityId.lowercased()
            let held = try store.acknowledgedVersions(ids: [id]).first
            if let held, held.acknowledgedAt > version.acknowledgedAt { return true }
            let queue = try store.fetchMutations(entityId: id)
            // A dead letter keeps its local values (sync-engine §9 guarantee 4); a queued create or delete owns the
            // row.
            guard queue.allSatisfy({ $0.operation == .update && $0.isLive }), try Self.holds(row.entityType, id, store)
            else {
                try store.recordAcknowledged([version])
                return true
            }
            let rebase = queue.first { $0.operation == .update && $0.isLive }
            if row.operation == .update, !answer.replayed, held?.deleted == false, network.serverHistory != nil {
                let sent = [row.payload, rebase?.payload].compactMap { $0 }.map(MutationPayload.members(setBy:))
                let changed = try Self.changedMembers(of: row.entityType, id: id, by: stored, store)
                if !changed.subtracting(sent.reduce(into: Set<String>()) { $0.formUnion($1) }).isEmpty {
                    // Owed in the same unit as the send's outcome: if the give-back fails, the next round pays it
                    // before it pulls, and nothing the server sends meanwhile is written over the row.
                    try store.markOwed(row.entityType, id: id, reason: .giveBack)
                    return false
                }
            }
            try store.replace(id: id, with: stored, rebasing: rebase)
            if let rebase { try Rebase.keepStatus(of: rebase, store) }
            try store.recordAcknowledged([version])
            return true
        }
    }

    /// The members (`properties.<key>` for an event property) whose value `answer` would change on the row `id`.
    static func changedMembers(
        of type: MutationEntityType, id: String, by answer: APIEntity, _ store: any DataStoreProtocol
    ) throws -> Set<String> {
        func changed<Entity: OutboxEntity>(_ row: Entity?, _ apply: (inout Entity) -> Void) throws -> Set<String> {
            guard let row else { return [] }
            var taken = row
            apply(&taken)
            return try MutationPayload.patch(from: row, to: taken).map(MutationPayload.members(setBy:)) ?? []
        }
        switch answer {
        case .eventType(let api): return try changed(try store.findEventType(id: id)) { $0.replaceFields(with: api) }
        case .event(let api): return try changed(try store.findEvent(id: id)) { $0.replaceFields(with: api) }
        case .geofence(let api): return try changed(try store.findGeofence(id: id)) { $0.replaceFields(with: api) }
        case .propertyDefinition(let api):
            return try changed(try store.findPropertyDefinition(id: id)) { $0.replaceFields(with: api) }
        }
    }

    /// A 4xx answer: the server stored nothing under the key (a key it had committed would be replayed, not
    /// refused), so it settles an earlier lost answer too. A 5xx proves nothing about an earlier send.
    static func isRefusal(_ error: any Error) -> Bool {
        guard case .http(let failure) = error as? NetworkError else { return false }
        return failure.status < 500
    }

    /// An update's earlier send, unsettled (its answer was lost, so the server may have committed it), re-sent
    /// exactly as it went before the row's newer body: a committed send is replayed (R5), one that was not is applied
    /// now, and either way the answer acknowledges its keys, which leave the queued patch (R2). Without it, a merge
    /// under a new key would apply the old values again over a later write of another device. A 5xx says nothing
    /// about the lost answer (as for batches, sync-engine §4.7): the send stays unsettled and the row pays an attempt.
    /// Returns the row to send next, claimed again, or nil when nothing more goes this round.
    private func settleEarlierSend(
        _ earlier: PendingMutation, of row: PendingMutation, _ run: inout PushRun, _ counters: inout SyncCounts
    ) async throws -> PendingMutation? {
        let resolution: Resolution
        let effect: BreakerEffect
        var sent: SentAnswer?
        do {
            let answer = try await send(try PushRequest(earlier), earlier)
            (resolution, effect) = (answer.replayed ? .completedOwed(.replayed) : .completed, .reset(success: true))
            sent = answer
        } catch {
            if case .http = error as? NetworkError, !Self.isRefusal(error) {
                let (rowResolution, rowEffect) = try await resolve(error, row, &run, &counters)
                try record([(row, rowResolution)], breaker: rowEffect, &run, &counters)
                return nil
            }
            (resolution, effect) = try await resolve(error, earlier, &run, &counters)
        }
        if case .untouched = resolution { return nil }
        // Answered: recorded as the older revision's outcome, then forgotten; what is queued now goes next.
        try record([(earlier, resolution)], breaker: effect, &run, &counters)
        if let sent { try await acknowledge(sent, of: earlier, &counters) }
        let current = try unitOfWork { store -> PendingMutation? in
            try Self.forgetSend(of: earlier, store)
            return try store.fetchMutations(entityId: row.entityId).first { $0.id == row.id && $0.isLive }
        }
        guard let current else { return nil }
        return try claim([current], &run).first
    }

    /// One answer: replayed from an earlier request with the same key (R5), and the entity as the server stored it
    /// when the answer carried one (R15).
    struct SentAnswer {
        var replayed: Bool
        var stored: APIEntity?
        /// A delete's time as the server recorded it (N14, or a repeated delete's 404 `deleted`).
        var deletedAt: Date?
    }

    /// Sends one request; `queuedAt`, when a re-sent create was queued (`Trendy-Queued-For`, api-v1 §7).
    private func send(
        _ request: PushRequest, _ row: PendingMutation, queuedAt: Date? = nil
    ) async throws -> SentAnswer {
        let id = row.entityId
        let key = row.clientRequestId
        func answer(_ replayed: Bool, _ stored: APIEntity?) -> SentAnswer {
            SentAnswer(replayed: replayed, stored: stored)
        }
        switch request {
        case .createEventType(let body):
            let stored = try await network.create(body, idempotencyKey: key, queuedAt: queuedAt)
            return answer(stored.replayed, .eventType(stored))
        case .createGeofence(let body):
            let stored = try await network.create(body, idempotencyKey: key, queuedAt: queuedAt)
            return answer(stored.replayed, .geofence(stored))
        case .createPropertyDefinition(let body):
            let stored = try await network.create(body, idempotencyKey: key, queuedAt: queuedAt)
            return answer(stored.replayed, .propertyDefinition(stored))
        case .createEvent:
            // Event creates never go alone: `pushEventCreates` sends them in batches (sync-engine §4.7).
            throw PushRequest.NotASingleRequest()
        case .updateEventType(let body):
            let stored = try await network.updateEventTypeWithIdempotency(id: id, body, idempotencyKey: key)
            return answer(stored.replayed, .eventType(stored))
        case .updateEvent(let body):
            let stored = try await network.updateEventWithIdempotency(id: id, body, idempotencyKey: key)
            return answer(stored.replayed, .event(stored))
        case .updateGeofence(let body):
            let stored = try await network.updateGeofenceWithIdempotency(id: id, body, idempotencyKey: key)
            return answer(stored.replayed, .geofence(stored))
        case .updatePropertyDefinition(let body):
            let stored = try await network.updatePropertyDefinitionWithIdempotency(id: id, body, idempotencyKey: key)
            return answer(stored.replayed, .propertyDefinition(stored))
        case .delete:
            let deletedAt = try await network.deleteEntity(row.entityType, id: id)
            return SentAnswer(replayed: false, stored: nil, deletedAt: deletedAt)
        }
    }

    /// sync-engine §4.5/§4.6 for a thrown error: carries out `PushOutcome`'s decision. Throws `RoundStop` for errors
    /// that end the round and `BreakerTripped` when a probe is answered 429.
    func resolve(
        _ error: any Error, _ row: PendingMutation, _ run: inout PushRun, _ counters: inout SyncCounts
    )
        async throws -> (Resolution, BreakerEffect)
    {
        switch PushOutcome.of(PushErrorClass.classify(error, operation: row.operation), operation: row.operation) {
        case .stop(let stop): throw stop
        case .feedWentBack: throw FeedWentBack()
        case .rateLimited(let retryAfter):
            try rateLimited(retryAfter, &run)
            return (.untouched, .none)
        case .resolved(let resolution, let effect): return (resolution, effect)
        case .confirmDuplicate(let existingId, let message):
            return (
                try await confirmDuplicate(row, existingId: existingId, message: message, &run), .reset(success: false)
            )
        }
    }

    /// A duplicate answer to a create (sync-engine §4.6): decided by `PushOutcome`, asking the server (N2) whether it
    /// holds the entity when the answer names none.
    func confirmDuplicate(
        _ row: PendingMutation, existingId: String?, message: String, _ run: inout PushRun
    )
        async throws -> Resolution
    {
        if let decided = PushOutcome.duplicateCreate(of: row.entityId, existingId: existingId, message: message) {
            return decided
        }
        do {
            let exists = try await network.entityExists(row.entityType, id: row.entityId)
            return PushOutcome.duplicateCreate(exists: exists, message: message)
        } catch {
            switch PushOutcome.of(PushErrorClass.classify(error, operation: .create), operation: .create) {
            case .stop(let stop): throw stop
            case .rateLimited(let retryAfter):
                try rateLimited(retryAfter, &run)
                return .untouched
            case .resolved(.untouched, _): return .untouched
            default:
                return .counted("could not confirm a duplicate: \((error as? NetworkError)?.description ?? "\(error)")")
            }
        }
    }

    /// A push 429 (sync-engine §6.1): counted by the breaker; a probe's 429 trips it at once; with `Retry-After` a
    /// quiet period begins and the round stops.
    func rateLimited(_ retryAfter: TimeInterval?, _ run: inout PushRun) throws {
        let probe = run.probe
        run.probe = false
        let backoff = try updateEngineState { engineState -> TimeInterval? in
            CircuitBreaker.count429(&engineState, retryAfter: retryAfter)
            if let retryAfter, retryAfter > 0 {
                CircuitBreaker.beginQuietPeriod(
                    &engineState, retryAfter: retryAfter, now: now, cap: configuration.retryAfterCap)
            }
            return probe ? CircuitBreaker.trip(&engineState, now: now, configuration: configuration) : nil
        }
        if let retryAfter, retryAfter > 0 {
            throw RoundStop.rateLimited(retryAfter: min(retryAfter, configuration.retryAfterCap))
        }
        if let backoff {
            enter(.rateLimited(retryAfter: backoff, pending: observedCounts.pending))
            throw BreakerTripped()
        }
    }

    // MARK: Recording outcomes (sync-engine §4.6)

    /// Writes the outcomes of one unit and the breaker effect in one unit of work. Every write is conditional on
    /// the claimed revision: a newer local edit stays live.
    ///
    /// `answering` names an unanswered batch (sync-engine §4.7 step 2) whose answer these outcomes are: it is forgotten
    /// in the same unit of work.
    func record(
        _ outcomes: [(PendingMutation, Resolution)], breaker effect: BreakerEffect, answering batchKey: String? = nil,
        _ run: inout PushRun, _ counters: inout SyncCounts
    ) throws {
        if effect != .none { run.probe = false }
        try unitOfWork { store in
            if let batchKey { try store.removeUnansweredBatch(key: batchKey) }
            for (row, resolution) in outcomes {
                switch resolution {
                case .untouched:
                    continue
                case .completed, .completedAs, .completedOwed:
                    if try store.completeMutation(id: row.id, revision: row.revision) {
                        counters.pushed += 1
                        try settleEntity(after: row, resolution: resolution, store)
                        if row.operation == .create, case .completedOwed(.duplicate, _) = resolution {
                            try Self.sendFoldedEdits(of: row, store, at: now)
                        }
                    } else if row.operation == .update, let acknowledged = row.payload {
                        // R2: a newer revision is queued; what this answer acknowledged is no longer owed by it.
                        if try Self.subtract(acknowledged, from: row, store, at: now) { counters.pushed += 1 }
                    } else if row.operation == .create, let queued = try Self.sameCreate(as: row, store),
                        try store.completeMutation(id: queued.id, revision: queued.revision)
                    {
                        // A create retried (DS5) with the body that went: the answer to the earlier send is its own.
                        counters.pushed += 1
                        try settleEntity(after: queued, resolution: resolution, store)
                    }
                    try Self.forgetSend(of: row, store)
                    if case .completedOwed(let reason, let acknowledged) = resolution {
                        try store.markOwed(row.entityType, id: row.entityId, reason: reason)
                        if let acknowledged { try store.recordAcknowledged([acknowledged]) }
                    }
                    if row.operation == .delete {
                        // The server's cascade did what the local one did: the children's debts are paid.
                        for owed in try store.owedEntities() where owed.after == row.entityId {
                            try store.settleOwed(owed.entityType, id: owed.id, token: owed.token)
                        }
                    }
                    if row.operation == .create { run.openCreates.remove(row.entityId) }
                    run.openEventUpdates[row.id] = nil
                case .deadLetter(let message), .conflict(let message), .counted(let message):
                    let deadLetterNow = if case .counted = resolution { false } else { true }
                    let result = try store.recordMutationFailure(
                        id: row.id, revision: row.revision, message: message, at: now,
                        maxAttempts: configuration.maxAttempts, deadLetterNow: deadLetterNow)
                    switch result {
                    case .counted: counters.failed += 1
                    case .deadLettered:
                        counters.failed += 1
                        counters.deadLettered += 1
                        if row.operation == .create { run.openCreates.remove(row.entityId) }
                        run.openEventUpdates[row.id] = nil
                    case .skipped: break
                    }
                    if case .conflict = resolution {
                        try store.markOwed(row.entityType, id: row.entityId, reason: .conflict)
                    }
                    // A dead letter's send is settled (404, or a conflict: a committed key is replayed, not
                    // refused); a counted failure may be a 5xx, which proves nothing about an earlier lost answer.
                    if case .counted = resolution {} else { try Self.forgetSend(of: row, store) }
                }
                run.recorded += 1
            }
            if case .reset(let success) = effect {
                var engineState = try store.loadEngineState()
                CircuitBreaker.reset(&engineState, success: success)
                try store.saveEngineState(engineState)
                observedEngineState = engineState
            }
        }
        refreshCounts()
        publishProgress(run)
    }

    /// R5, sync-engine §1.7: a create the server turned out to hold already — answered as a duplicate of the same
    /// entity (a database put back from a backup taken before its send), or given back as a version the server holds
    /// (R15) — was not written as sent, so the edits folded into it since it was queued may not be on the server: they
    /// go on as an update, with the row's values for the keys they set, before the read-back that follows (which waits
    /// for it, and keeps its keys, R3). Without this the read-back took them away.
    static func sendFoldedEdits(of row: PendingMutation, _ store: any DataStoreProtocol, at now: Date) throws {
        guard row.operation == .create, let edits = row.foldedEdits else { return }
        guard let full = try payload(of: row.entityType, id: row.entityId, store, creates: false) else { return }
        let update = try MutationPayload.rebuilding(edits, from: full, of: row.entityType)
        _ = try store.enqueueMutation(
            entityType: row.entityType, operation: .update, entityId: row.entityId, payload: update, at: now)
    }

    /// An answer to `row`'s key settles that send: a newer revision queued since no longer re-sends it first.
    static func forgetSend(of row: PendingMutation, _ store: any DataStoreProtocol) throws {
        guard row.operation == .update,
            var queued = try store.fetchMutations(entityId: row.entityId).first(where: { $0.id == row.id }),
            queued.sentKey == row.clientRequestId
        else { return }
        queued.sentKey = nil
        queued.sentPayload = nil
        try store.rewriteMutation(queued)
    }

    /// The queued create of `row`'s entity when it holds the very body `row` sent, at a newer revision.
    static func sameCreate(as row: PendingMutation, _ store: any DataStoreProtocol) throws -> PendingMutation? {
        guard let sent = row.payload,
            let queued = try store.fetchMutations(entityId: row.entityId).first(where: { $0.id == row.id }),
            queued.operation == .create, queued.revision != row.revision, queued.payload == sent
        else { return nil }
        return queued
    }

    /// R2: the queued newer revision of `row` without the keys (and property keys) whose queued value equals the
    /// acknowledged one, under a new key; a patch left empty completes (true).
    static func subtract(
        _ acknowledged: Data, from row: PendingMutation, _ store: any DataStoreProtocol, at now: Date
    ) throws -> Bool {
        guard var queued = try store.fetchMutations(entityId: row.entityId).first(where: { $0.id == row.id }),
            let payload = queued.payload
        else { return false }
        guard let left = try MutationPayload.subtracting(acknowledged, from: payload, of: row.entityType) else {
            try store.deletePendingMutation(queued)
            return true
        }
        guard left != payload else { return false }
        queued.payload = left
        queued.clientRequestId = UUIDv7.generate(at: now)
        queued.revision += 1
        queued.updatedAt = now.roundedToMilliseconds
        try store.rewriteMutation(queued)
        return false
    }

    /// The entity's `sync_status` after its mutation completed (sync-engine §1.3), and the re-keying of a HealthKit
    /// match.
    private func settleEntity(after row: PendingMutation, resolution: Resolution, _ store: any DataStoreProtocol) throws
    {
        // R15: a batch item's answer carries the event as stored, with the server's time.
        if case .completedAs(let stored) = resolution, let version = APIEntity.event(stored).acknowledgedVersion {
            try store.recordAcknowledged([version])
        }
        switch row.operation {
        case .create:
            if case .completedAs(let stored) = resolution, stored.id.lowercased() != row.entityId.lowercased() {
                try rekeyEvent(from: row.entityId, to: stored, store)
                return
            }
            // Not `mark…Synced`: it throws for a missing row (deleted meanwhile), and a throwing store operation
            // rolls back the whole unit of work — the completion included. DS6 ignores a missing row.
            try store.setSyncStatus(.synced, entityType: row.entityType, id: row.entityId)
        case .update:
            let remaining = try store.fetchMutations(entityId: row.entityId)
            guard !remaining.contains(where: { $0.entityType == row.entityType && $0.isDeadLetter }),
                try currentStatus(of: row.entityType, id: row.entityId, store) == .failed
            else { return }
            try store.setSyncStatus(.synced, entityType: row.entityType, id: row.entityId)
        case .delete:
            break
        }
    }

    private func currentStatus(
        of type: MutationEntityType, id: String, _ store: any DataStoreProtocol
    ) throws
        -> SyncStatus?
    {
        switch type {
        case .event: try store.findEvent(id: id)?.syncStatus
        case .eventType: try store.findEventType(id: id)?.syncStatus
        case .geofence: try store.findGeofence(id: id)?.syncStatus
        case .propertyDefinition: try store.findPropertyDefinition(id: id)?.syncStatus
        }
    }

    /// sync-engine §4.7.3.2: the server matched the item to another HealthKit event. The client-id row is replaced by
    /// one with the server's id, from the returned object when it is complete, otherwise from the local values.
    private func rekeyEvent(from clientId: String, to stored: APIEvent, _ store: any DataStoreProtocol) throws {
        let serverId = stored.id.lowercased()
        if try store.findEvent(id: serverId) == nil {
            let local = try store.findEvent(id: clientId)
            try store.upsertEvent(id: serverId) { event in
                if stored.isComplete {
                    event.replaceFields(with: stored)
                } else if let local {
                    event = local
                }
                event.id = serverId
            }
        }
        try store.deleteEvent(id: clientId)
    }
}
