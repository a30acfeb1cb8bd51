import Foundation
import Logging
import Models
import Protocols

/// One item of an event-create batch: the request as it is (or was) sent, and its mutation as claimed — nil when the
/// mutation left the queue after a send that went unanswered (the item is still re-sent, so the body and key stay).
struct BatchItem {
    var row: PendingMutation?
    var request: CreateEventRequest
}

/// A batch claimed for its first send: its items in queue order and its key (sync-engine §4.7.2).
struct ClaimedBatch {
    var items: [BatchItem]
    var key: String
}

typealias BatchAnswer = Result<BatchCreateEventsResponse, any Error>

extension SyncEngine {
    /// Phase 4 (sync-engine §4.7): first every batch sent and not answered, exactly as it went (same members, bodies
    /// and key); then the other event creates in batches of `batchSize` (`PushPlan.batches`), each kept as unanswered
    /// from the claim that sends it until its answer is recorded.
    func pushEventCreates(
        _ mutations: [PendingMutation], _ run: inout PushRun, _ counters: inout SyncCounts
    )
        async throws
    {
        let resent = try await resendUnansweredBatches(mutations, &run, &counters)
        var ready: [PendingMutation] = []
        for mutation in mutations where !resent.contains(mutation.id) {
            if isDeferred(mutation, run) {
                deferMutation(mutation, &run, &counters)
            } else {
                ready.append(mutation)
            }
        }
        // sync-engine §4.7.5: batch n + 1 leaves as soon as batch n's answer is in; n's answer is recorded, and n + 2
        // claimed, while n + 1 is on the wire. The server still runs the batches one at a time, in queue order.
        var units = PushPlan.batches(ready, size: configuration.batchSize).makeIterator()
        var next = try claimNextBatch(&units, &run, &counters)
        var unrecorded: (batch: ClaimedBatch, answer: BatchAnswer)?
        while let batch = next {
            next = nil
            do {
                try crossUnitBoundary(&run)
            } catch {
                release(batch, &run)
                if let (previous, answer) = unrecorded { try await recordAnswer(answer, previous, &run, &counters) }
                throw error
            }
            let network = network
            async let sent = Self.send(batch, over: network)
            var overlapped: (any Error)?
            do {
                if let (previous, answer) = unrecorded {
                    unrecorded = nil
                    try await recordAnswer(answer, previous, &run, &counters)
                }
                next = try claimNextBatch(&units, &run, &counters)
            } catch {
                overlapped = error
            }
            let answer = await sent
            if let overlapped {
                try await recordAnswer(answer, batch, &run, &counters)
                throw overlapped
            }
            if case .success = answer, next != nil, !run.probe {
                unrecorded = (batch, answer)
                continue
            }
            do {
                try await recordAnswer(answer, batch, &run, &counters)
            } catch {
                if let next { release(next, &run) }
                throw error
            }
        }
        if let (previous, answer) = unrecorded { try await recordAnswer(answer, previous, &run, &counters) }
    }

    /// Claims the next unit that has something to send (see `claimBatch`), recording the rows that do not decode.
    private func claimNextBatch(
        _ units: inout IndexingIterator<[[PendingMutation]]>, _ run: inout PushRun, _ counters: inout SyncCounts
    ) throws -> ClaimedBatch? {
        while let unit = units.next() {
            let (items, invalid, key) = try claimBatch(unit, &run)
            if !invalid.isEmpty { try record(invalid, breaker: .none, &run, &counters) }
            if let key { return ClaimedBatch(items: items, key: key) }
            publishProgress(run)
        }
        return nil
    }

    /// A batch claimed and not sent, because the round stopped first: its members count as deferred and may be sent
    /// again by this run. It stays recorded as unanswered, and leaves with its key, as after a kill there
    /// (sync-engine §6.5).
    private func release(_ batch: ClaimedBatch, _ run: inout PushRun) {
        logger.notice(
            "a claimed batch was not sent: the round stopped first", metadata: ["items": "\(batch.items.count)"])
        for row in batch.items.compactMap(\.row) {
            run.untouched.insert(row.id)
            thisRun.sent[row.id] = nil
        }
    }

    /// Sends a batch away from the actor, so that the engine records the last answer and claims the next batch
    /// meanwhile.
    private nonisolated static func send(
        _ batch: ClaimedBatch, over network: any NetworkClientProtocol
    ) async -> BatchAnswer {
        do {
            return .success(try await network.createEventsBatch(batch.items.map(\.request), idempotencyKey: batch.key))
        } catch {
            return .failure(error)
        }
    }

    private func recordAnswer(
        _ answer: BatchAnswer, _ batch: ClaimedBatch, _ run: inout PushRun, _ counters: inout SyncCounts
    ) async throws {
        switch answer {
        case .success(let response):
            try await recordBatchAnswer(response, batch.items, key: batch.key, &run, &counters)
        case .failure(let error):
            try await handleBatchError(error, batch.items, key: batch.key, resend: false, &run, &counters)
        }
        publishProgress(run)
    }

    /// Claims a unit, decodes its payloads and keeps the batch as unanswered, in one unit of work, so that the
    /// batch is on disk before its request leaves. Returns the items, the undecodable rows, and the key.
    private func claimBatch(
        _ unit: [PendingMutation], _ run: inout PushRun
    ) throws -> (items: [BatchItem], invalid: [(PendingMutation, Resolution)], key: String?) {
        let (claimed, items, invalid, key) = try unitOfWork {
            store -> ([PendingMutation], [BatchItem], [(PendingMutation, Resolution)], String?) in
            let claimed = try store.claimMutations(ids: unit.map(\.id), at: now)
            var items: [BatchItem] = []
            var members: [UnansweredBatch.Member] = []
            var invalid: [(PendingMutation, Resolution)] = []
            for row in claimed {
                if case .createEvent(let request)? = try? PushRequest(row), let payload = row.payload {
                    items.append(BatchItem(row: row, request: request))
                    members.append(
                        UnansweredBatch.Member(
                            mutationId: row.id, revision: row.revision, entityId: row.entityId, payload: payload))
                } else {
                    invalid.append((row, .counted("invalid payload: it does not decode as an event create")))
                }
            }
            guard !items.isEmpty else { return (claimed, items, invalid, nil) }
            let key = PushPlan.batchKey(items.compactMap(\.row), hashing: hashing)
            try store.recordUnansweredBatch(UnansweredBatch(key: key, members: members, sentAt: now))
            return (claimed, items, invalid, key)
        }
        for mutation in unit { run.untouched.remove(mutation.id) }
        for row in claimed { thisRun.sent[row.id] = row.revision }
        run.recorded += unit.count - claimed.count
        return (items, invalid, key)
    }

    /// Re-sends each unanswered batch with its members' bodies and its key, so the server replays what it ran or
    /// runs it for the first time, and records the answer for the members still queued at the revision sent. A batch
    /// none of whose members is queued any more is forgotten unsent. Returns the ids of every member, whatever
    /// happened: they are not batched again this round.
    private func resendUnansweredBatches(
        _ pushSet: [PendingMutation], _ run: inout PushRun, _ counters: inout SyncCounts
    ) async throws -> Set<String> {
        let batches = try unitOfWork { try $0.unansweredBatches() }
        let pushSetIds = Set(pushSet.map(\.id))
        var members: Set<String> = []
        for batch in batches {
            let requests = batch.members.compactMap {
                try? JSONCoding.decode(CreateEventRequest.self, from: $0.payload)
            }
            guard requests.count == batch.members.count else {
                try unitOfWork { try $0.removeUnansweredBatch(key: batch.key) }  // unreadable: send the members afresh
                continue
            }
            let ids = batch.members.map(\.mutationId)
            members.formUnion(ids)
            try crossUnitBoundary(&run)
            // The members were claimed when the batch was first sent: this only reads the live ones.
            let live = try unitOfWork { try $0.claimMutations(ids: ids, at: now) }
            guard !live.isEmpty else {
                // No member is live. One that is dead may be retried: the batch waits for it, as the only key its
                // first send can be replayed under. Once every member left the queue (deleted here, discarded),
                // nothing waits for this answer any more.
                let queued = try unitOfWork { store in Set(try store.fetchPendingMutations().map(\.id)) }
                if !ids.contains(where: queued.contains) {
                    try unitOfWork { try $0.removeUnansweredBatch(key: batch.key) }
                }
                for id in ids where run.untouched.remove(id) != nil { run.recorded += 1 }
                continue
            }
            // S24: a batch whose members this run sent already waits for the next run.
            guard ids.contains(where: pushSetIds.contains) else { continue }
            let byId = Dictionary(live.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for id in ids {
                if run.untouched.remove(id) != nil, byId[id] == nil { run.recorded += 1 }
            }
            for member in batch.members where byId[member.mutationId]?.revision == member.revision {
                thisRun.sent[member.mutationId] = member.revision
            }
            let items = zip(batch.members, requests).map { member, request in
                // The outcome is recorded against the revision that was sent: a newer one stays queued.
                BatchItem(
                    row: byId[member.mutationId].map { row in
                        var sent = row
                        sent.revision = member.revision
                        sent.payload = member.payload
                        return sent
                    }, request: request)
            }
            try await sendBatch(items, key: batch.key, resend: true, &run, &counters)
            publishProgress(run)
        }
        return members
    }

    /// Sends one batch and records its answer; a thrown error is handled by sync-engine §4.7.4. `resend`: an earlier
    /// send of this batch went unanswered, so it says when its creates were queued (sync-engine R15, api-v1 §7): a
    /// server that takes it as new, having lost the first send to a copy put back by hand, dates them then.
    private func sendBatch(
        _ items: [BatchItem], key: String, resend: Bool, _ run: inout PushRun, _ counters: inout SyncCounts
    ) async throws {
        let response: BatchCreateEventsResponse
        let queuedAt = resend ? items.compactMap(\.row?.createdAt).max() : nil
        do {
            response = try await network.createEventsBatch(
                items.map(\.request), idempotencyKey: key, queuedAt: queuedAt)
        } catch {
            try await handleBatchError(error, items, key: key, resend: resend, &run, &counters)
            return
        }
        try await recordBatchAnswer(response, items, key: key, &run, &counters)
    }

    private enum BatchErrorHandling {
        /// Transport, 401, 429, in flight, a feed that went back (api-v1 §6.7), cancellation: as for a single
        /// request; nothing recorded on the items.
        case asSingleRequest
        /// 4xx, a duplicate-class 5xx or an undecodable 2xx: every item again, alone.
        case oneItemFallback
        /// Another 5xx or an invalid response: every item fails once.
        case failEveryItem(String)
    }

    private static func handling(of error: any Error) -> BatchErrorHandling {
        guard let error = error as? NetworkError else { return .asSingleRequest }
        switch error {
        case .cancelled, .transport: return .asSingleRequest
        case .decoding: return .oneItemFallback
        case .invalidResponse: return .failEveryItem(error.description)
        case .http(let failure):
            if failure.status == 401 || failure.status == 429 || failure.problemType == "idempotency_in_flight"
                || (failure.status == 410 && failure.problemType == "cursor_expired")
            {
                return .asSingleRequest
            }
            let message = (failure.message ?? "").lowercased()
            if failure.status < 500 || ["duplicate", "unique", "23505"].contains(where: message.contains) {
                return .oneItemFallback
            }
            return .failEveryItem(error.description)
        }
    }

    private func handleBatchError(
        _ error: any Error, _ items: [BatchItem], key: String, resend: Bool, _ run: inout PushRun,
        _ counters: inout SyncCounts
    ) async throws {
        let rows = items.compactMap(\.row)
        switch Self.handling(of: error) {
        case .asSingleRequest:
            // Unanswered: the batch stays as it is for the next round.
            if let first = rows.first { _ = try await resolve(error, first, &run, &counters) }
        case .failEveryItem(let message):
            // A 5xx stores nothing for this request, but when an earlier send went unanswered that one may have
            // committed: the batch stays unanswered under its key, the only one the server can replay it under. A
            // new key would make it a new create, which restores an entity deleted since (api-v1 §7): a
            // resurrection (docs/error-recovery.md, "Lost answers").
            try record(
                rows.map { ($0, .counted("batch failed: \(message)")) }, breaker: .reset(success: false),
                answering: resend ? nil : key, &run, &counters)
        case .oneItemFallback:
            // The batch was answered (nothing of it is stored on the server); each item goes alone, as a batch of
            // its own that is kept until answered like any other.
            try unitOfWork { try $0.removeUnansweredBatch(key: key) }
            for item in items {
                guard let row = item.row else { continue }
                try crossUnitBoundary(&run)
                let single = PushPlan.batchKey([row], hashing: hashing)
                try unitOfWork { store in
                    try store.recordUnansweredBatch(
                        UnansweredBatch(
                            key: single,
                            members: [
                                UnansweredBatch.Member(
                                    mutationId: row.id, revision: row.revision, entityId: row.entityId,
                                    payload: try JSONCoding.encode(item.request))
                            ], sentAt: now))
                }
                do {
                    let answer = try await network.createEventsBatch([item.request], idempotencyKey: single)
                    try await recordBatchAnswer(answer, [item], key: single, &run, &counters)
                } catch let stop as RoundStop {
                    throw stop
                } catch is BreakerTripped {
                    throw BreakerTripped()
                } catch {
                    let (resolution, effect) = try await resolve(error, row, &run, &counters)
                    let answered = resolution == .untouched ? nil : single
                    try record([(row, resolution)], breaker: effect, answering: answered, &run, &counters)
                }
            }
        }
    }

    /// sync-engine §4.7.3: each item by its id among `created`, else by its HealthKit sample id, else by its index
    /// among `errors`; an item in neither list is a counted failure. All outcomes, and forgetting the batch, in one
    /// unit of work. A replayed answer (R5) completes its created items as before and makes their entities owed.
    private func recordBatchAnswer(
        _ response: BatchCreateEventsResponse, _ items: [BatchItem], key: String, _ run: inout PushRun,
        _ counters: inout SyncCounts
    ) async throws {
        var created = CreatedLookup(response.created)
        let errorsByIndex = Dictionary(response.errors.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var outcomes: [(PendingMutation, Resolution)] = []
        var stop: (any Error)?
        for (index, item) in items.enumerated() {
            let id = (item.row?.entityId ?? item.request.id ?? "").lowercased()
            let match =
                created.take(id: id)
                ?? item.request.healthKitSampleId.flatMap { created.take(healthKitSampleId: $0) }
            guard let row = item.row else { continue }  // left the queue: its answer changes nothing here
            if let match {
                // `.completedAs` carries the stored event, with the server's time (R15); a replay proves only that
                // the server took the event then (R5, R15).
                outcomes.append(
                    (
                        row,
                        match.id.lowercased() == id && response.replayed
                            ? .completedOwed(.replayed, acknowledged: APIEntity.event(match).acknowledgedVersion)
                            : .completedAs(match)
                    ))
            } else if let entry = errorsByIndex[index] {
                let message = entry.message.lowercased()
                if entry.type == "conflict" || message.contains("duplicate") || message.contains("unique") {
                    do {
                        outcomes.append(
                            (
                                row,
                                try await confirmDuplicate(
                                    row, existingId: entry.existingId?.lowercased(), message: entry.message, &run)
                            ))
                    } catch {
                        // The confirmation ended the round: record the other answers first, then stop.
                        stop = error
                        break
                    }
                } else {
                    outcomes.append((row, .counted(entry.message)))
                }
            } else {
                outcomes.append((row, .counted("not acknowledged by server")))
            }
        }
        // S59: the multiplier resets on a 2xx status, which the client reports; a 207 in which every item failed
        // is still a 2xx, and a 400 carrying the same body is not. A round stopped by a confirmation leaves the
        // batch unanswered: its unrecorded members are re-sent with it.
        try record(
            outcomes, breaker: .reset(success: response.isSuccessStatus), answering: stop == nil ? key : nil, &run,
            &counters)
        if let stop { throw stop }
    }
}

/// The `created` list of a batch answer, each entry matched at most once, in list order: by id through a dictionary
/// (a batch of 500 matched by scanning cost 125 000 string comparisons), by HealthKit sample id by a scan (rare).
struct CreatedLookup {
    private let entries: [APIEvent]
    private var taken: [Bool]
    private var byId: [String: [Int]] = [:]

    init(_ entries: [APIEvent]) {
        self.entries = entries
        self.taken = Array(repeating: false, count: entries.count)
        for (index, entry) in entries.enumerated() { byId[entry.id.lowercased(), default: []].append(index) }
    }

    mutating func take(id: String) -> APIEvent? {
        guard let index = byId[id]?.first(where: { !taken[$0] }) else { return nil }
        taken[index] = true
        return entries[index]
    }

    mutating func take(healthKitSampleId sample: String) -> APIEvent? {
        guard let index = entries.indices.first(where: { !taken[$0] && entries[$0].healthKitSampleId == sample })
        else { return nil }
        taken[index] = true
        return entries[index]
    }
}
