import Foundation
import Logging
import Models
import Protocols

/// R15: what a device gives back to a server that went back to a backup.
///
/// The device compares digests with the server (api-v1 §14) to find what differs, then hands back, per differing
/// entity, what only it can know: an entity it holds that the server lacks, a version the server acknowledged later
/// than the one the server holds now, a delete the server acknowledged that the server no longer has. The server
/// takes each only when it is newer than what it holds (api-v1 §15.1); everything else that differs is read back, so
/// the device ends with the server's state, which now holds what the device gave back.
extension SyncEngine {
    /// Items a give-back request carries at most (api-v1 §15.1).
    static let giveBackBatch = 500

    /// R15: a server history other than the one the device's acknowledgments belong to, or nil. The first history
    /// a device meets is simply remembered.
    func newServerHistory() throws -> ServerHistory? {
        guard let seen = network.serverHistory else { return nil }
        let stored = try readEngineState().serverHistoryId
        guard let stored else {
            try updateEngineState { $0.serverHistoryId = seen.id }
            return nil
        }
        return stored == seen.id ? nil : seen
    }

    /// R15, S36: gives back every version owed as `giveBack` (an update's answer would have taken a field of it away),
    /// then makes each owed a read-back instead, for this round's read-backs: the row then takes the server's state,
    /// which holds the version given back where it was newer. Runs right after such an answer and, for a debt a failed
    /// give-back left, before the next round pulls; a failure throws and keeps every debt.
    func payGiveBackDebts(_ counters: inout SyncCounts) async throws {
        let debts = try unitOfWork { store in try store.owedEntities().filter { $0.reason == .giveBack } }
        guard !debts.isEmpty else { return }
        try await giveBack(
            since: nil, readingBack: true, differing: debts.map { ($0.entityType, $0.id, true) },
            unacknowledged: false, remembersHistory: false, &counters)
        try unitOfWork { store in
            // By entity, not by token: the give-back itself marks what it did not take owed again, and keeps the
            // reason; a round runs alone, so no other debt can have been incurred meanwhile.
            let given = Set(debts.map(\.id))
            for debt in try store.owedEntities() where debt.reason == .giveBack && given.contains(debt.id) {
                try store.settleOwed(debt.entityType, id: debt.id, token: nil)
                try store.markOwed(debt.entityType, id: debt.id, reason: .verify)
            }
        }
    }

    /// What a bootstrap gives back first (R15): acknowledged versions only (a `sync --full`, a stream's 410), or also
    /// rows nobody acknowledged that the server lacks (a pull's 410).
    enum GiveBackScope {
        case acknowledged
        case everything
    }

    /// An entity present on one side only or with another hash; `serverHolds` when the server listed it.
    typealias Difference = (type: MutationEntityType, id: String, serverHolds: Bool)

    /// Gives back what the server lacks of what this device holds (R15), then remembers the server's history.
    /// With `readingBack`, every other difference is made owed, for this round's read-backs; a bootstrap that
    /// follows needs none. `differing` is what a verification found already. With `unacknowledged`, a row nobody
    /// acknowledged that the server lacks goes back too: only where a loss is likely (a new history, a 410, a
    /// bootstrap of a device that synced before), not on a verify's difference, where it is a stray row.
    /// Nothing happens against a server without a digest or a history (no give-back either). Returns each answered
    /// item's outcome, by lowercased id.
    @discardableResult
    func giveBack(
        since history: ServerHistory?, readingBack: Bool, differing found: [Difference]? = nil,
        unacknowledged: Bool, remembersHistory: Bool = true, _ counters: inout SyncCounts
    ) async throws -> [String: GiveBackOutcome] {
        guard try readEngineState().serverFeatures.has(ServerFeatures.digest) else { return [:] }
        let differing: [Difference]
        if let found { differing = found } else { differing = try await differencesFromServer() }
        guard network.serverHistory != nil else { return [:] }
        let (items, rest, sentCreates) = try giveBackItems(
            for: differing, backupTakenAt: history?.backupTakenAt, unacknowledged: unacknowledged)
        let owed = rest
        var refused: [GiveBackResult] = []
        var answeredCreates: [(PendingMutation, GiveBackOutcome)] = []
        // A version the server took, or holds already (`kept`: this one or a newer, as when the answer to an earlier
        // give-back was lost and the request is tried again), is one it acknowledged, dated as given back
        // (api-v1 §15.1: the server keeps that time as the version's `updated_at`). Recorded now, not when a pull brings
        // it: a round that stops before the pull, then a second restore, would otherwise find a row nobody
        // acknowledged, which a verify or a bootstrap reads back away.
        var taken: [AcknowledgedVersion] = []
        var outcomes: [String: GiveBackOutcome] = [:]
        let itemsById = Dictionary(items.map { ($0.id.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < items.count {
            let chunk = Array(items[index..<min(index + Self.giveBackBatch, items.count)])
            index += chunk.count
            let answer: GiveBackResponse
            do {
                answer = try await retryingServerErrors { try await network.giveBack(chunk) }
            } catch NetworkError.http(let failure) where failure.status == 404 && failure.problemType == "not_found" {
                return [:]  // a server from before the give-back: nothing to do but what it always did
            } catch {
                throw stop(for: error)
            }
            for result in answer.results where !result.id.isEmpty {
                outcomes[result.id.lowercased()] = result.outcome
                if result.outcome == .applied || result.outcome == .kept, let item = itemsById[result.id.lowercased()] {
                    taken.append(
                        AcknowledgedVersion(
                            entityType: item.entityType, id: result.id.lowercased(),
                            acknowledgedAt: item.acknowledgedAt, deleted: item.deleted,
                            createdAt: item.data?["created_at"]?.stringValue.flatMap(RFC3339.date(from:))))
                }
                if let create = sentCreates[result.id.lowercased()] {
                    // Not counted: nobody knows whether the server had it (the report counts what it had lost).
                    // The server holds it now (or a later delete of it): the create is answered. A refused one
                    // stays queued, and its push meets the same rule.
                    if result.outcome != .refused { answeredCreates.append((create, result.outcome)) }
                } else if result.outcome == .applied {
                    counters.givenBack += 1
                } else if result.outcome == .refused {
                    refused.append(result)
                }
            }
        }
        let serverHolds = Dictionary(differing.map { ($0.id, $0.serverHolds) }, uniquingKeysWith: { $0 || $1 })
        let keptRefused = try unitOfWork { store in
            try store.recordAcknowledged(taken)
            // A version the server refused (a name another device took since, a parent it refused too) is a change
            // the user still has to settle: a dead letter that says why, never a read-back that would take it away
            // unseen. Not a live change: sent as an ordinary write, it would pass the newer-only rule, and bring back
            // what another device deleted since (its delete given back after this).
            let kept = try Self.keepRefused(
                refused, serverHolds: serverHolds, store, at: now, maxAttempts: configuration.maxAttempts)
            for (create, outcome) in answeredCreates
            where try store.completeMutation(id: create.id, revision: create.revision) {
                try store.setSyncStatus(.synced, entityType: create.entityType, id: create.entityId)
                // Edits folded into the create since it was queued, which a version the server held kept out.
                if outcome != .deleted { try Self.sendFoldedEdits(of: create, store, at: now) }
            }
            if !answeredCreates.isEmpty {
                // A batch none of whose members is queued any more waits for no answer (sync-engine §4.7.2).
                let queued = Set(try store.fetchPendingMutations().map(\.id))
                for batch in try store.unansweredBatches()
                where !batch.members.contains(where: { queued.contains($0.mutationId) }) {
                    try store.removeUnansweredBatch(key: batch.key)
                }
            }
            if readingBack {
                // Whatever the server did not take is the server's to tell: read it back.
                for (type, id) in owed where !kept.contains(id) {
                    try store.markOwed(type, id: id, reason: .verify)
                }
            }
            if remembersHistory {
                var engineState = try store.loadEngineState()
                if let seen = network.serverHistory { engineState.serverHistoryId = seen.id }
                try store.saveEngineState(engineState)
                observedEngineState = engineState
            }
            return kept
        }
        if counters.givenBack > 0 {
            logger.notice("gave back \(counters.givenBack) changes the server had lost")
        }
        if !keptRefused.isEmpty {
            logger.warning(
                "the server refused \(keptRefused.count) changes given back; they are kept as dead letters",
                metadata: ["detail": "\(refused.first?.detail ?? "")"])
        }
        return outcomes
    }

    /// R15: a create never sent of an entity this device holds acknowledged — a refused give-back kept as a dead
    /// letter, which the user retried — goes back dated that version before the push, not as a new write: pushed,
    /// it would be a version of now, which beats every acknowledged edit other devices give back after it. What the
    /// server does not take stays queued, and the push meets the same refusal. Its own give-back, not the one of a
    /// new history: the history is not marked as met. True when it gave back: the push set is then read again.
    func giveBackRetriedVersions(among pushSet: [PendingMutation], _ counters: inout SyncCounts) async throws -> Bool {
        let creates = Set(pushSet.filter { $0.operation == .create && !$0.isSent }.map(\.entityId))
        guard !creates.isEmpty, network.serverHistory != nil else { return false }
        let retried: [Difference] = try unitOfWork { store in
            try store.acknowledgedVersions(ids: creates).filter { !$0.deleted }.map {
                (type: $0.entityType, id: $0.id, serverHolds: false)
            }
        }
        guard !retried.isEmpty else { return false }
        try await giveBack(
            since: nil, readingBack: true, differing: retried, unacknowledged: false, remembersHistory: false,
            &counters)
        return true
    }

    /// Keeps the refused versions this device holds as dead letters, and returns their ids. Where the server lacks the
    /// entity, a create of the row as it is replaces whatever was queued for it (the row holds those edits already);
    /// where it holds it, the row's full state as an update, unless a change is queued already (it is the user's
    /// edit, sent as usual). The message says why, and for a name another entity holds, which one to merge into
    /// (`types merge`). An entity whose change the user discarded is left to its read-back: the user chose the
    /// server's copy. Any other debt the dead letter settles: read back from a server that lost the entity, it would
    /// be answered 404, and the read-back would delete the acknowledged version the server refused to take (R4).
    private static func keepRefused(
        _ refused: [GiveBackResult], serverHolds: [String: Bool], _ store: any DataStoreProtocol, at now: Date,
        maxAttempts: Int
    ) throws -> Set<String> {
        guard !refused.isEmpty else { return [] }
        let debts = Dictionary(grouping: try store.owedEntities(), by: \.id)
        var kept: Set<String> = []
        for result in refused {
            let id = result.id.lowercased()
            guard debts[id]?.contains(where: { $0.reason == .discarded }) != true else { continue }
            let creates = serverHolds[id] != true
            let queued = try store.fetchMutations(entityId: id)
            let payload = try Self.payload(of: result.entityType, id: id, store, creates: creates)
            guard let payload else { continue }  // no longer held here: nothing to settle
            var folded: Data?
            if creates {
                folded = try Self.unsentEdits(in: queued, of: result.entityType)
                for mutation in queued { try store.deletePendingMutation(mutation) }
            } else if !queued.isEmpty {
                kept.insert(id)
                continue
            }
            _ = try store.enqueueMutation(
                entityType: result.entityType, operation: creates ? .create : .update, entityId: id, payload: payload,
                at: now)
            guard var mutation = try store.fetchMutations(entityId: id).last else { continue }
            if let folded {
                // The create holds the queued edits in its body, and keeps them apart as folded edits
                // (sync-engine §1.7): a retry the server answers with the acknowledged version (R15) sends them on instead of losing
                // them.
                mutation.foldedEdits = folded
                try store.rewriteMutation(mutation)
            }
            let detail = result.detail ?? "refused"
            let message =
                result.existingId.map { "conflict: \(detail)\(PendingMutation.heldOnServerMarker)\($0.lowercased())" }
                ?? PendingMutation.refusedGiveBackPrefix + detail
            _ = try store.recordMutationFailure(
                id: mutation.id, revision: mutation.revision, message: message, at: now, maxAttempts: maxAttempts,
                deadLetterNow: true)
            for debt in debts[id] ?? [] { try store.settleOwed(debt.entityType, id: debt.id, token: debt.token) }
            kept.insert(id)
        }
        return kept
    }

    /// The edits `queued` holds that the server never acknowledged, as one update body: the queued updates' bodies
    /// and a queued create's folded edits, oldest first; nil when there are none.
    static func unsentEdits(in queued: [PendingMutation], of type: MutationEntityType) throws -> Data? {
        let bodies = queued.compactMap { $0.operation == .update ? $0.payload : $0.foldedEdits }
        guard var merged = bodies.first else { return nil }
        for body in bodies.dropFirst() { merged = try MutationPayload.merge(merged, body, of: type) }
        return merged
    }

    /// The row held here as a create body, or its full state as an update body; nil when the row is gone.
    static func payload(
        of type: MutationEntityType, id: String, _ store: any DataStoreProtocol, creates: Bool
    ) throws -> Data? {
        switch type {
        case .eventType: try payload(try store.findEventType(id: id), creates: creates)
        case .event: try payload(try store.findEvent(id: id), creates: creates)
        case .geofence: try payload(try store.findGeofence(id: id), creates: creates)
        case .propertyDefinition: try payload(try store.findPropertyDefinition(id: id), creates: creates)
        }
    }

    private static func payload(_ entity: (some OutboxEntity)?, creates: Bool) throws -> Data? {
        guard let entity else { return nil }
        return creates ? try MutationPayload.create(entity) : try MutationPayload.update(entity)
    }

    /// Every entity present on one side only or with another hash, bucket by bucket (the cursors need not meet:
    /// the server's newer-only rule makes a give-back safe at any moment).
    private func differencesFromServer() async throws -> [Difference] {
        async let answer = network.getDigest()
        let local = try unitOfWork { store in try LocalDigest(store, hashing: hashing) }
        let server: SyncDigest
        do {
            server = try await answer
        } catch {
            throw stop(for: error)
        }
        return try await differences(local, server, listedAt: nil) ?? []
    }

    /// The entities of every bucket whose sums differ (R10's comparison), present on one side only or with another
    /// hash. With `listedAt`, nil as soon as a bucket is listed at another cursor: the feed moved meanwhile.
    func differences(_ local: LocalDigest, _ server: SyncDigest, listedAt cursor: Int64?) async throws -> [Difference]?
    {
        let mine = local.builder.digest(cursor: local.cursor)
        var differing: [Difference] = []
        for bucket in EntityDigest.bucketNames where mine.buckets[bucket] != server.buckets[bucket] {
            let listed: SyncDigestBucket
            do {
                listed = try await retryingServerErrors { try await network.getDigestBucket(bucket) }
            } catch {
                throw stop(for: error)
            }
            if let cursor, listed.cursor != cursor { return nil }
            var theirs: [String: (MutationEntityType, String)] = [:]
            for item in listed.items {
                guard let type = MutationEntityType(rawValue: item.entityType) else { continue }
                theirs[item.id.lowercased()] = (type, item.hash)
            }
            let held = local.items[EntityDigest.bucketNumber(of: bucket)]
            for (id, item) in held where theirs[id].flatMap({ DigestSum(hex: $0.1) }) != item.sum {
                differing.append((item.type, id, theirs[id] != nil))
            }
            for (id, item) in theirs where held[id] == nil { differing.append((item.0, id, true)) }
        }
        return differing
    }

    /// Tries a read or a give-back up to three times while the server answers 5xx or the connection fails. A restore
    /// that lost much leaves most of the 256 buckets differing: one listing each, and a round that stops at the first
    /// failure would, on a flaky link, start the comparison over for ever. Both are safe to repeat (a give-back by
    /// the newer-only rule, api-v1 §15.1).
    func retryingServerErrors<Value: Sendable>(_ request: () async throws -> Value) async throws -> Value {
        var attempt = 1
        while true {
            do {
                return try await request()
            } catch let error as NetworkError where attempt < 3 {
                switch error {
                case .http(let failure) where failure.status >= 500: attempt += 1
                case .transport: attempt += 1
                default: throw error
                }
            }
        }
    }

    /// What to give back of the differing entities, and the rest (to read back). A row with a queued create is the
    /// queue's to send; a version the server holds is given back only with the time it was acknowledged, which the
    /// server compares with its own.
    private func giveBackItems(
        for differing: [Difference], backupTakenAt: Date?, unacknowledged: Bool
    ) throws -> (items: [GiveBackItem], rest: [(MutationEntityType, String)], sentCreates: [String: PendingMutation]) {
        try unitOfWork { store in
            let queue = try store.fetchPendingMutations()
            // A create sent before whose answer never came (lost, or the process killed) may have been taken by the
            // history the server lost, and other devices may have edited it since: sent again now, it would be a new
            // write that beats their acknowledged versions. It goes back instead, dated when it was queued (the time
            // of what it sends), which every later acknowledgment passes; the answer settles it. Not its first send:
            // a copy of the device's database put back from before that send sends it again later than other
            // devices' edits of what the server took the first time. Only where a loss is likely.
            let acknowledged = Dictionary(
                try store.acknowledgedVersions(ids: Set(differing.map(\.id))).map { ($0.id, $0) },
                uniquingKeysWith: { _, last in last })
            // A create never sent of an entity this device holds acknowledged (a refused give-back kept as a dead
            // letter, then retried) is that version too, never a new write; so it goes back wherever it differs.
            let sentCreates = Dictionary(
                queue.filter { mutation in
                    guard mutation.operation == .create, mutation.isLive else { return false }
                    if mutation.isSent { return unacknowledged }
                    return acknowledged[mutation.entityId].map { !$0.deleted } ?? false
                }.map { ($0.entityId, $0) },
                uniquingKeysWith: { first, _ in first })
            let created = Set(queue.filter { $0.operation == .create }.map(\.entityId))
            // The members a queued update (live or dead) changed hold no acknowledged value: named `pending`, they
            // count on the server from when they arrive, as the update's push would (api-v1 §15.1). Dated with the
            // version instead, they would lose to any version acknowledged later, and the push that follows, equal
            // to what the give-back wrote, would change nothing.
            var pending: [String: Set<String>] = [:]
            for update in queue where update.operation == .update {
                pending[update.entityId, default: []].formUnion(update.payload.map(MutationPayload.members) ?? [])
            }
            // A row with any change queued, failed or owed is the queue's or the read-back's, never evidence.
            let unsettled = Set(queue.map(\.entityId)).union(try store.owedEntities().map(\.id))
            var items: [GiveBackItem] = []
            var rest: [(MutationEntityType, String)] = []
            var given: [String: PendingMutation] = [:]
            for entity in differing {
                let version = acknowledged[entity.id]
                let held = version.flatMap { $0.deleted ? nil : $0 }
                // A create of no version held begins its incarnation when it was queued, as its push would say
                // (api-v1 §7): a row put back from an export keeps its first creation time, from before a delete
                // it follows, by which the server would find it ended (api-v1 §15.1).
                if let create = sentCreates[entity.id],
                    let data = try Self.restObject(
                        entity.type, id: entity.id, createdAt: held?.createdAt ?? create.createdAt,
                        overridingRow: held == nil, store)
                {
                    let datedAt = held?.acknowledgedAt ?? create.createdAt
                    // Dated when queued only when nobody acknowledged the entity before: a create of an entity
                    // the device held acknowledged (a refused give-back kept as a create, then retried) is that
                    // version as held, which any later acknowledgment of another device beats.
                    // Edits folded into the create since it was queued hold no acknowledged value either.
                    let folded = create.foldedEdits.map(MutationPayload.members(setBy:)) ?? []
                    items.append(
                        GiveBackItem(
                            entityType: entity.type, id: entity.id, acknowledgedAt: datedAt, deleted: false,
                            data: data, pending: pending[entity.id, default: []].union(folded).sorted()))
                    given[entity.id] = create
                } else if let data = try Self.restObject(
                    entity.type, id: entity.id, createdAt: version?.createdAt, overridingRow: false, store),
                    !created.contains(entity.id)
                {
                    // Held here. Without an acknowledgment, only an entity the server lacks goes back, dated no
                    // later than the backup: a delete the server remembers still wins.
                    if let version, !version.deleted {
                        items.append(
                            GiveBackItem(
                                entityType: entity.type, id: entity.id, acknowledgedAt: version.acknowledgedAt,
                                deleted: false, data: data, pending: pending[entity.id].map { $0.sorted() } ?? []))
                    } else if unacknowledged, !entity.serverHolds, !unsettled.contains(entity.id) {
                        items.append(
                            GiveBackItem(
                                entityType: entity.type, id: entity.id,
                                acknowledgedAt: backupTakenAt ?? Date(millisecondsSince1970: 0), deleted: false,
                                data: data))
                    }
                } else if let version, version.deleted, entity.serverHolds {
                    items.append(
                        GiveBackItem(
                            entityType: entity.type, id: entity.id, acknowledgedAt: version.acknowledgedAt,
                            deleted: true, data: nil))
                }
                rest.append((entity.type, entity.id))
            }
            if unacknowledged {
                // A delete of an entity gone from both sides shows in no digest, yet the lost history may have taken
                // it: another device that still holds the entity would give it back, and only the delete, dated as
                // acknowledged, keeps it out (the server remembers it, api-v1 §15.1). Where a loss is likely, every
                // acknowledged delete since the backup goes back (every one when the backup's time is unknown).
                let listed = Set(differing.map(\.id))
                for version in try store.acknowledgedVersions(ids: nil)
                where version.deleted && !listed.contains(version.id) && !unsettled.contains(version.id)
                    && backupTakenAt.map({ version.acknowledgedAt > $0 }) ?? true
                {
                    items.append(
                        GiveBackItem(
                            entityType: version.entityType, id: version.id, acknowledgedAt: version.acknowledgedAt,
                            deleted: true, data: nil))
                }
            }
            // Parents before children across requests too (the server orders within one): types, definitions,
            // geofences, events; deletes last, children first.
            return (items.sorted { $0.applicationRank < $1.applicationRank }, rest, given)
        }
    }

    /// The local row as the REST object the server's create reads (api-v1 §4), with its id and creation time: the
    /// row's, or for an event, whose row keeps none, `createdAt` (the acknowledged version's), by which the server
    /// tells an edit of what a delete ended from a re-creation (api-v1 §15.1). `overridingRow`: `createdAt` for
    /// every kind, the row's own time aside.
    private static func restObject(
        _ type: MutationEntityType, id: String, createdAt: Date?, overridingRow: Bool, _ store: any DataStoreProtocol
    ) throws -> JSONValue? {
        var members: [String: JSONValue]
        switch type {
        case .eventType:
            guard let row = try store.findEventType(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreateEventTypeRequest(row)).objectValue ?? [:]
            members["created_at"] = .string(RFC3339.string(from: row.createdAt))
        case .event:
            guard let row = try store.findEvent(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreateEventRequest(row)).objectValue ?? [:]
            if let createdAt { members["created_at"] = .string(RFC3339.string(from: createdAt)) }
        case .geofence:
            guard let row = try store.findGeofence(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreateGeofenceRequest(row)).objectValue ?? [:]
            members["created_at"] = .string(RFC3339.string(from: row.createdAt))
        case .propertyDefinition:
            guard let row = try store.findPropertyDefinition(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreatePropertyDefinitionRequest(row)).objectValue ?? [:]
            members["event_type_id"] = .string(row.eventTypeId)
            members["created_at"] = .string(RFC3339.string(from: row.createdAt))
        }
        if overridingRow, let createdAt { members["created_at"] = .string(RFC3339.string(from: createdAt)) }
        members["id"] = .string(id)
        return .object(members)
    }
}
