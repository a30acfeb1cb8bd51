import Foundation
import Hashing
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Event-create batches")
struct BatchTests {
    /// A harness with a synced type and `count` local events of it.
    func prepared(
        _ count: Int, configuration: SyncConfiguration = .standard()
    ) async throws -> (SyncHarness, EventType, [Event]) {
        let h = try SyncHarness(configuration: configuration)
        let type = try await h.syncedType()
        var events: [Event] = []
        for index in 0..<count { events.append(try await h.event(type, Double(index))) }
        return (h, type, events)
    }

    func apiEvent(_ id: String, _ type: EventType, sample: String? = nil, complete: Bool = true) -> APIEvent {
        APIEvent(
            id: id, userId: complete ? MockNetworkClient.defaultUserId : "", eventTypeId: complete ? type.id : "",
            timestamp: complete ? Build.instant : .zeroInstant, sourceType: .healthkit,
            details: EventDetails(healthKitSampleId: sample))
    }

    @Test("S47 items match created rows by id, then by HealthKit sample id; a match with another id re-keys the event")
    func matching() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let plain = try await h.event(type, 1)
        let sampled = try await h.event(type, 2) {
            $0.sourceType = .healthkit
            $0.healthKitSampleId = "HK-7"
        }
        let serverId = Build.id(4242)
        h.network.enqueue(
            BatchCreateEventsResponse(
                created: [
                    apiEvent(serverId, type, sample: "HK-7"),
                    APIEvent(id: plain.id.uppercased(), userId: "u", eventTypeId: type.id, timestamp: Build.instant),
                ],
                total: 2, success: 2, failed: 0),
            for: .createEventsBatchWithIdempotency)
        h.network.enqueue(.transport("pull later"), for: .getChanges)
        _ = await h.engine.performSync()
        #expect(try h.queue().isEmpty)
        #expect(try h.events.event(id: sampled.id) == nil)
        let rekeyed = try #require(try h.events.event(id: serverId))
        // S47: Batch items are matched to created rows by id, then by healthkit_sample_id; a sample-id match with…
        #expect(rekeyed.healthKitSampleId == "HK-7" && rekeyed.syncStatus == .synced && rekeyed.eventTypeId == type.id)
        #expect(try h.events.event(id: plain.id)?.syncStatus == .synced)
    }

    @Test("S47 a partial HealthKit match keeps the local values under the server's id")
    func partialMatch() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let sampled = try await h.event(type, 3) {
            $0.sourceType = .healthkit
            $0.healthKitSampleId = "HK-8"
            $0.notes = "local"
        }
        let serverId = Build.id(4343)
        h.network.enqueue(
            BatchCreateEventsResponse(
                created: [apiEvent(serverId, type, sample: "HK-8", complete: false)], total: 1, success: 1, failed: 0),
            for: .createEventsBatchWithIdempotency)
        h.network.enqueue(.transport("pull later"), for: .getChanges)
        _ = await h.engine.performSync()
        let rekeyed = try #require(try h.events.event(id: serverId))
        // S47: Batch items are matched to created rows by id, then by healthkit_sample_id; a sample-id match with…
        #expect(rekeyed.notes == "local" && rekeyed.timestamp == sampled.timestamp && rekeyed.id == serverId)
    }

    @Test("S48 S49 a duplicate entry is a duplicate on create; other entries and missing items cost one attempt each")
    func perItemErrors() async throws {
        let (h, type, events) = try await prepared(4)
        h.network.enqueue(
            BatchCreateEventsResponse(
                created: [APIEvent(id: events[0].id, userId: "u", eventTypeId: type.id, timestamp: Build.instant)],
                errors: [
                    BatchEventError(index: 1, message: "duplicate event", type: "conflict", existingId: events[1].id),
                    BatchEventError(index: 2, message: "timestamp is required", type: "validation"),
                ],
                total: 4, success: 1, failed: 2),
            for: .createEventsBatchWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.pushed == 2 && report.failed == 2)
        let left = try h.queue()
        #expect(left.map(\.entityId) == [events[2].id, events[3].id])
        // S49: A batch item in neither created nor errors costs one attempt.
        #expect(left.map(\.lastError) == ["timestamp is required", "not acknowledged by server"])
        // S48: A batch errors[] entry with a duplicate message is handled like a duplicate on create; any other entry…
        #expect(left.allSatisfy { $0.attempts == 1 && $0.isLive })
    }

    @Test("S50 a result where every item failed (the original's 400) is handled item by item")
    func everyItemFailed() async throws {
        let (h, _, events) = try await prepared(2)
        h.network.enqueue(
            BatchCreateEventsResponse(
                created: [],
                errors: [
                    BatchEventError(index: 0, message: "invalid event type: x"),
                    BatchEventError(index: 1, message: "duplicate key"),
                ],
                total: 2, success: 0, failed: 2),
            for: .createEventsBatchWithIdempotency)
        h.network.enqueue(false, for: .entityExists)
        _ = await h.engine.performSync()
        let rows = try h.queue()
        #expect(rows.first { $0.entityId == events[0].id }?.attempts == 1)
        // S50: A 400 whose body is a batch response is processed item by item, not as a whole failure.
        #expect(
            rows.first { $0.entityId == events[1].id }.map {
                $0.isDeadLetter && $0.lastError == "conflict: duplicate key"
            } == true)
    }

    @Test(
        "S51 a whole-batch 4xx, duplicate-class 5xx or undecodable answer re-sends every item alone under its own key",
        arguments: [
            http(409, "conflict", message: "duplicate id"), http(422, "idempotency_mismatch"),
            http(500, message: "pq: duplicate key value (SQLSTATE 23505)"),
            NetworkError.decoding(status: 200, message: "?"),
        ])
    func oneItemFallback(error: NetworkError) async throws {
        let (h, _, events) = try await prepared(3)
        let queued = try h.queue()
        h.network.enqueue(error, for: .createEventsBatchWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.pushed == 3 && report.outcome.name == "synced")
        let calls = h.network.calls(of: .createEventsBatchWithIdempotency)
        #expect(calls.map { $0.body?["events"]?.arrayValue?.count } == [3, 1, 1, 1])
        let keys = calls.compactMap(\.idempotencyKey)
        // S51: A whole-batch 4xx, duplicate-class 5xx or decoding error re-sends every item as a one-item batch with…
        #expect(keys.count == 4 && Set(keys).count == 4, "each one-item batch has its own key, none reuses the batch's")
        #expect(try h.queue().isEmpty)
        #expect(calls.dropFirst().map { $0.body?["events"]?.arrayValue?.first?["id"]?.stringValue } == events.map(\.id))
        let derived = events.map { event in
            queued.first { $0.entityId == event.id }.map { CryptoSHA256().hexDigest(of: "\($0.clientRequestId):0") }
        }
        #expect(keys.dropFirst().map { Optional($0) } == derived, "S51 each one-item key is derived from its own item")
    }

    @Test(
        "S51 the fallback handles each one-item answer: a duplicate with existing_id completes, a 400 costs an attempt")
    func fallbackOutcomes() async throws {
        let (h, _, events) = try await prepared(2)
        h.network.enqueue(http(500, message: "duplicate key"), for: .createEventsBatchWithIdempotency)
        h.network.enqueue(
            http(409, "conflict", message: "duplicate id", existingId: events[0].id),
            for: .createEventsBatchWithIdempotency)
        h.network.enqueue(http(400, "validation", message: "bad item"), for: .createEventsBatchWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.pushed == 1 && report.failed == 1)
        // S51: A whole-batch 4xx, duplicate-class 5xx or decoding error re-sends every item as a one-item batch with…
        #expect(try h.queue().map(\.entityId) == [events[1].id])
    }

    @Test("S52 a whole-batch 5xx that is not duplicate-class costs every item one attempt")
    func wholeBatchFailure() async throws {
        let (h, _, _) = try await prepared(3)
        h.network.enqueue(http(503, message: "maintenance"), for: .createEventsBatchWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.failed == 3 && h.network.callCount(.createEventsBatchWithIdempotency) == 1)
        // S52: A whole-batch 5xx that is not duplicate-class costs every item one attempt.
        #expect(try h.queue().allSatisfy { $0.attempts == 1 && $0.lastError == "batch failed: HTTP 503: maintenance" })
    }

    @Test("S53 a 429 or an idempotency_in_flight answer changes no mutation")
    func untouchedAnswers() async throws {
        let (h, _, _) = try await prepared(2)
        let before = try h.queue()
        h.network.enqueue(http(429), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        h.network.enqueue(
            http(409, "idempotency_in_flight", message: "running"), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        let after = try h.queue()
        #expect(after.map(\.attempts) == [0, 0] && after.map(\.revision) == before.map(\.revision))
        // S53: A 429 or idempotency_in_flight answer changes no mutation.
        #expect(after.map(\.lastError) == [nil, nil])
    }

    @Test(
        "sync-engine §4.7.5 the next batch is claimed while one is on the wire, and leaves only after that one's answer"
    )
    func pipelinedBatches() async throws {
        let (h, _, events) = try await prepared(5, configuration: try SyncConfiguration(batchSize: 2))
        let ids = events.map(\.id)
        let gate = h.network.hold(.createEventsBatchWithIdempotency)
        let sync = Task { await h.engine.performSync() }
        await gate.waitForArrivals(1)
        try await waitUntil("the second batch claimed while the first is held", lastSeen: await h.stateDescription()) {
            try h.read { try $0.unansweredBatches() }.count == 2
        }
        let claimed = try h.read { try $0.unansweredBatches() }
        #expect(claimed.map { $0.members.map(\.entityId) } == [Array(ids[0..<2]), Array(ids[2..<4])])
        #expect(gate.arrivals == 1, "claimed, not sent: the first batch has no answer yet")
        gate.release()
        #expect(await sync.value.outcome == .synced(bootstrapped: false))
        let sent = h.network.calls(of: .createEventsBatchWithIdempotency)
        #expect(sent.map(\.idempotencyKey) == claimed.map(\.key) + [sent.last?.idempotencyKey].compactMap { $0 })
        #expect(
            sent.map { ($0.body?["events"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } }
                == [Array(ids[0..<2]), Array(ids[2..<4]), [ids[4]]],
            "one batch at a time, in queue order")
        #expect(try h.queue().isEmpty && (try h.read { try $0.unansweredBatches() }).isEmpty)
        #expect(h.serverEvents.map(\.id).sorted() == ids.sorted())
    }

    @Test(
        "sync-engine §4.7.5 a batch claimed behind one answered 429 is not sent: deferred, it leaves with its key next run"
    )
    func claimedBatchBehindAStop() async throws {
        let (h, _, events) = try await prepared(5, configuration: try SyncConfiguration(batchSize: 2))
        let ids = events.map(\.id)
        h.network.enqueue(http(429, retryAfter: 5), for: .createEventsBatchWithIdempotency)
        let stopped = await h.engine.performSync()
        #expect(stopped.outcome.name == "rate_limited")
        #expect(h.network.createEventsBatchCallCount == 1, "nothing sent after the 429")
        #expect(stopped.deferred == 3, "the claimed batch's two members and the unclaimed fifth")
        let waiting = try h.read { try $0.unansweredBatches() }
        #expect(waiting.map { $0.members.map(\.entityId) } == [Array(ids[0..<2]), Array(ids[2..<4])])
        h.clock.advance(by: 6)
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let sent = h.network.calls(of: .createEventsBatchWithIdempotency)
        #expect(Array(sent.map(\.idempotencyKey).prefix(2)) == waiting.map(\.key), "each with the key of its claim")
        #expect(try h.serverEvents.map(\.id).sorted() == ids.sorted() && h.queue().isEmpty)
    }

    @Test(
        "sync-engine §4.7.2 an unanswered batch is re-sent exactly as it went, a member deleted here included: nothing returns"
    )
    func unansweredBatchIsResentVerbatim() async throws {
        let (a, _, events) = try await prepared(2)
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        #expect(await a.engine.performSync().outcome.name == "offline")
        let batch = try #require(try a.saved { try $0.unansweredBatches() }.first)
        #expect(batch.members.map(\.entityId) == events.map(\.id), "kept from the claim that sent it")
        // The batch had in fact arrived: the server stored both events, and its answer was what got lost.
        let requests = try batch.members.map { try JSONCoding.decode(CreateEventRequest.self, from: $0.payload) }
        _ = try a.model.createEventsBatch(user: a.network.userId, requests, key: batch.key)
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        try await b.events.deleteEvent(id: events[1].id)  // another device deletes one of them
        _ = await b.engine.performSync()
        try await a.events.deleteEvent(id: events[0].id)  // this device deletes the other: it leaves the batch

        a.network.resetCalls()
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        let resent = try #require(a.network.calls(of: .createEventsBatchWithIdempotency).first)
        #expect(resent.idempotencyKey == batch.key, "the same key")
        #expect(resent.body?["events"]?.arrayValue?.count == 2, "the same members, the deleted one included")
        #expect(a.serverEvents.isEmpty, "replayed, not run again: neither delete is undone")
        #expect(try a.events.events().isEmpty && (try a.saved { try $0.unansweredBatches() }).isEmpty)
        _ = await b.engine.performSync()
        #expect(try b.events.events().isEmpty)
    }

    @Test(
        "R5 R15 a replayed batch records the server's acknowledgment: a server restored before the read-back gets the events back"
    )
    func replayedBatchIsAcknowledged() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let backup = h.model.backUp()
        h.clock.advance(by: 10)
        let events = [try await h.event(type, 1), try await h.event(type, 2)]
        h.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        let batch = try #require(try h.saved { try $0.unansweredBatches() }.first)
        let requests = try batch.members.map { try JSONCoding.decode(CreateEventRequest.self, from: $0.payload) }
        _ = try h.model.createEventsBatch(user: h.network.userId, requests, key: batch.key)  // the answer was lost
        // The replay is answered, then the server goes down before the pull or any read-back.
        h.network.setStickyError(http(503), for: .getChanges)
        #expect(await h.engine.performSync().outcome.name == "error")
        #expect(try Set(h.owed().map(\.id)) == Set(events.map(\.id)), "a replay proves nothing about today (R5)")
        let acknowledged = try h.read { try $0.acknowledgedVersions(ids: Set(events.map(\.id))) }
        #expect(acknowledged.count == 2, "but that the server took them, and when (R15)")

        h.clock.advance(by: 60)
        h.model.restore(backup)
        h.network.setStickyError(nil, for: .getChanges)
        let report = await h.engine.performSync()
        #expect(report.counts.givenBack == 2, "\(report)")
        #expect(Set(h.serverEvents.map(\.id)) == Set(events.map(\.id)))
        #expect(try Set(h.events.events().map(\.id)) == Set(events.map(\.id)), "not read back away")
    }

    @Test(
        "R5 R15 a replayed update's answer is the version the device holds: a server restored before the read-back gets the edit back"
    )
    func replayedUpdateIsAcknowledged() async throws {
        let (a, _, type) = try await twoDevices()
        let event = try await a.event(type, 1)
        _ = await a.engine.performSync()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        _ = try await a.events.updateEvent(id: event.id) { $0.notes = "edited" }
        let update = try #require(try a.mutations(of: event.id).first)
        let request = try JSONCoding.decode(UpdateEventRequest.self, from: try #require(update.payload))
        _ = try a.model.updateEvent(user: a.network.userId, id: event.id, request, key: update.clientRequestId)
        a.network.setStickyError(http(503), for: .getChanges)  // the server goes down after the replay's answer
        _ = await a.engine.performSync()
        #expect(try a.owed().map(\.id) == [event.id], "a replay proves nothing about today (R5)")
        let acknowledged = try a.read { try $0.acknowledgedVersions(ids: [event.id]) }
        #expect(acknowledged.first.map { !$0.deleted } == true, "but it is a version the server took (R15)")

        a.clock.advance(by: 60)
        a.model.restore(backup)
        a.network.setStickyError(nil, for: .getChanges)
        let report = await a.engine.performSync()
        #expect(report.counts.givenBack == 1, "\(report)")
        #expect(a.serverEvents.first { $0.id == event.id }?.notes == "edited")
        #expect(try a.events.event(id: event.id)?.notes == "edited", "not read back away")
    }

    @Test(
        "R15 a create whose answer was lost before a restore goes back dated when it was queued: another device's later edit of it wins, whoever syncs first",
        arguments: [true, false])
    func lostAnswerCreateGoesBack(_ creatorFirst: Bool) async throws {
        let (a, b, type) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        let event = try await a.event(type, 1)
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()
        let batch = try #require(try a.saved { try $0.unansweredBatches() }.first)
        let requests = try batch.members.map { try JSONCoding.decode(CreateEventRequest.self, from: $0.payload) }
        _ = try a.model.createEventsBatch(user: a.network.userId, requests, key: batch.key)  // taken; answer lost
        _ = await b.engine.performSync()
        a.clock.advance(by: 10)
        _ = try await b.events.updateEvent(id: event.id) { $0.notes = "from b" }
        _ = await b.engine.performSync()
        a.clock.advance(by: 60)
        a.model.restore(backup)

        for device in creatorFirst ? [a, b] : [b, a] { _ = await device.engine.performSync() }
        _ = await a.engine.performSync()
        #expect(a.serverEvents.first { $0.id == event.id }?.notes == "from b", "the later acknowledged edit stands")
        for device in [a, b] {
            #expect(try device.events.event(id: event.id)?.notes == "from b")
            #expect(try device.queue().isEmpty && (try device.saved { try $0.unansweredBatches() }).isEmpty)
        }
    }

    @Test(
        "R15 a create queued in a copy of the device's database put back from before its send, sent again after another device's edit with its answer lost, goes back dated when it was queued: the edit stands"
    )
    func putBackCreateGoesBackDatedWhenQueued() async throws {
        let (a, b, type) = try await twoDevices()
        let queuedAt = a.clock.now()
        // The server takes the event (here from b, as it took the first send the copy forgot) and a later edit.
        a.clock.advance(by: 10)
        let event = try await b.event(type, 1) { $0.notes = "first" }
        _ = await b.engine.performSync()
        a.clock.advance(by: 10)
        _ = try await b.events.updateEvent(id: event.id) { $0.notes = "from b" }
        _ = await b.engine.performSync()
        let backup = a.model.backUp()
        // a's database, a copy put back from before the create's first send: the row as first written, its create
        // queued back then and never sent as far as the copy knows, nothing acknowledged.
        var stale = event
        stale.syncStatus = .pending
        let store = a.stores.makeDataStore()
        try store.insert(stale)
        _ = try store.enqueueMutation(
            entityType: .event, operation: .create, entityId: event.id, payload: try MutationPayload.create(stale),
            at: queuedAt)
        try store.save()
        // Sent again now, after b's edit, and its answer lost; then the server goes back to a backup that holds the
        // edit, so a gives back.
        a.clock.advance(by: 10)
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()
        #expect(try a.mutations(of: event.id).first?.isSent == true)
        a.model.restore(backup)
        _ = await a.engine.performSync()
        _ = await a.engine.performSync()
        #expect(a.serverEvents.first { $0.id == event.id }?.notes == "from b", "the later acknowledged edit stands")
        #expect(try a.events.event(id: event.id)?.notes == "from b")
        #expect(try a.queue().isEmpty)
    }

    @Test(
        "R15 api-v1 §7 a batch whose answer was lost, sent again to a copy of the server put back by hand that never saw it, says when its event was queued: another device's delete of the event, given back after, ends it"
    )
    func resentBatchSaysWhenItsEventsWereQueued() async throws {
        let (a, b, type) = try await twoDevices()
        let copy = a.model.backUp()  // holds both devices' positions
        let event = try await a.event(type, 1)
        let queuedAt = try #require(try a.mutations(of: event.id).first?.createdAt)
        a.clock.advance(by: 10)
        // The first send: the server takes it, and its answer is lost.
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        #expect(await a.engine.performSync().outcome.name == "offline")
        let batch = try #require(try a.saved { try $0.unansweredBatches() }.first)
        let requests = try batch.members.map { try JSONCoding.decode(CreateEventRequest.self, from: $0.payload) }
        _ = try a.model.createEventsBatch(user: a.network.userId, requests, key: batch.key)
        let firstSend = try #require(a.network.calls(of: .createEventsBatchWithIdempotency).first)
        #expect(firstSend.arguments[MockNetworkClient.queuedAtArgument] == nil, "a first send says nothing")
        // Another device deletes the event; then the copy is put back by hand, with no new history.
        a.clock.advance(by: 10)
        _ = await b.engine.performSync()
        try await b.events.deleteEvent(id: event.id)
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        a.clock.advance(by: 10)
        a.model.restore(copy, announcing: false)

        a.network.resetCalls()
        _ = await a.engine.performSync()
        let resent = try #require(a.network.calls(of: .createEventsBatchWithIdempotency).first)
        #expect(resent.idempotencyKey == batch.key)
        #expect(resent.arguments[MockNetworkClient.queuedAtArgument] == RFC3339.string(from: queuedAt))
        #expect(a.serverEvents.map(\.id) == [event.id], "the copy never saw it: created anew")
        // b's position is past the copy's head: it gives its delete back, which ends what the re-send created.
        _ = await b.engine.performSync()
        _ = await b.engine.performSync()
        _ = await a.engine.performSync()
        #expect(a.serverEvents.isEmpty, "the delete stands")
        #expect(try a.events.event(id: event.id) == nil)
        #expect(try b.events.event(id: event.id) == nil)
    }

    @Test(
        "R15 api-v1 §7 §15.1 a device holding a delete acknowledged pulls, from a position a copy put back by hand still holds, the create of what it deleted sent again: the delete goes back and ends it"
    )
    func pulledResentCreateGivesTheDeleteBack() async throws {
        let (a, b, type) = try await twoDevices()
        let copy = a.model.backUp()
        let copyHead = try b.read { try $0.loadEngineState().position }
        #expect(copyHead.createdAt != nil, "b pulled to the copy's last change")
        let event = try await a.event(type, 1)
        a.clock.advance(by: 10)
        #expect(try await a.syncLosingCommittedBatch().outcome.name == "offline")
        a.clock.advance(by: 10)
        _ = await b.engine.performSync()
        try await b.events.deleteEvent(id: event.id)
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        a.clock.advance(by: 10)
        a.model.restore(copy, announcing: false)
        // As a device that last pulled at the copy's last change: its position holds there, and nothing else tells
        // it of the copy.
        try b.updateEngineState { $0.position = copyHead }
        _ = await a.engine.performSync()
        #expect(a.serverEvents.map(\.id) == [event.id], "sent again, created when it was queued")

        b.network.resetCalls()
        _ = await b.engine.performSync()
        #expect(b.network.callCount(.giveBack) == 1, "the delete went back")
        #expect(a.serverEvents.isEmpty, "the delete ends the incarnation the re-send began")
        #expect(try b.events.event(id: event.id) == nil, "not written back as a re-creation")
        _ = await a.engine.performSync()
        #expect(try a.events.event(id: event.id) == nil)
    }

    @Test(
        "R15 api-v1 §7 a type's create sent again after its answer was lost says when it was queued; a first send does not"
    )
    func resentCreateSaysWhenItWasQueued() async throws {
        let h = try SyncHarness()
        let type = try await h.events.createEventType(name: "Tea")
        let queuedAt = try #require(try h.mutations(of: type.id).first?.createdAt)
        h.clock.advance(by: 10)
        h.network.enqueue(NetworkError.transport("lost"), for: .createEventTypeWithIdempotency)
        #expect(await h.engine.performSync().outcome.name == "offline")
        h.clock.advance(by: 60)
        let second = await h.engine.performSync().outcome
        #expect(second == .synced(bootstrapped: true), "\(second)")
        let sends = h.network.calls(of: .createEventTypeWithIdempotency)
        #expect(
            sends.map { $0.arguments[MockNetworkClient.queuedAtArgument] } == [nil, RFC3339.string(from: queuedAt)])
        #expect(sends.map(\.idempotencyKey) == [sends.first?.idempotencyKey, sends.first?.idempotencyKey])
    }

    @Test(
        "R15 a create given back for a lost answer is an acknowledged version from then on: restored away again before any pull, it goes back on a `sync --full`"
    )
    func givenBackCreateIsAcknowledged() async throws {
        let (a, b, type) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        _ = try await b.events.createEventType(name: "Tea")
        _ = await b.engine.performSync()
        _ = await a.engine.performSync()  // a's position is now one the backup lacks
        let event = try await a.event(type, 1)
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()  // sent; the server never took it
        a.clock.advance(by: 60)
        a.model.restore(backup, announcing: false)
        // The re-sent batch is refused for its lost position (api-v1 §6.7): the bootstrap gives the create back, then
        // its listing fails, so no pull brings the given-back entry.
        a.network.setStickyError(http(503), for: .getEventsPage)
        a.network.resetCalls()
        let stopped = await a.engine.performSync()
        #expect(stopped.outcome.name == "offline" || stopped.outcome.name == "error", "\(stopped)")
        #expect(a.network.callCount(.giveBack) == 1 && a.network.callCount(.getChanges) == 0)
        #expect(a.serverEvents.contains { $0.id == event.id }, "given back")
        #expect(try a.queue().isEmpty, "the give-back answered the create")
        let acknowledged = try a.read { try $0.acknowledgedVersions(ids: [event.id]) }
        #expect(acknowledged.map(\.deleted) == [false], "a version the server took, recorded at once")

        a.model.restore(backup, announcing: false)  // the same file copied back again: the event is gone once more
        a.network.setStickyError(nil, for: .getEventsPage)
        let report = await a.engine.forceFullResync()
        #expect(report.outcome == .synced(bootstrapped: true) && report.counts.givenBack == 2, "\(report)")
        #expect(a.serverEvents.contains { $0.id == event.id }, "given back again, beside b's type")
        #expect(try a.events.event(id: event.id) != nil, "not taken away by the snapshot")
    }

    @Test(
        "R15 api-v1 §15.1 a type re-imported after its delete, its create sent and never answered, goes back created when it was queued: a restore that lost the answer does not let the delete end it"
    )
    func reimportedCreateGivenBackAfterItsDelete() async throws {
        let (a, b, _) = try await twoDevices()
        let tea = try await a.syncedType("Tea")
        let exported = try #require(try a.events.eventType(id: tea.id))
        a.clock.advance(by: 60)
        try await a.events.deleteEventType(id: tea.id)
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        let backup = a.model.backUp()  // remembers the delete
        a.clock.advance(by: 10)
        _ = try await b.events.createEventType(name: "Chai")
        _ = await b.engine.performSync()
        _ = await a.engine.performSync()  // a's position is now one the backup lacks
        a.clock.advance(by: 60)
        // The user puts the type back from an export, which keeps its first creation time; the create is sent and
        // never taken, then the server goes back to the backup.
        _ = try await a.events.importEntities(ImportBatch(eventTypes: [exported]), dryRun: false)
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventTypeWithIdempotency)
        _ = await a.engine.performSync()
        a.clock.advance(by: 60)
        a.model.restore(backup, announcing: false)

        _ = await a.engine.performSync()
        _ = await a.engine.performSync()
        #expect(a.serverEventTypes.contains { $0.id == tea.id }, "created again when it was queued, after the delete")
        #expect(try a.events.eventType(id: tea.id) != nil, "the import stands")
        #expect(try a.queue().isEmpty)
    }

    @Test(
        "R15 a create given back that the server holds already (kept: another device gave it back first, or an earlier answer was lost) is an acknowledged version too"
    )
    func keptCreateIsAcknowledged() async throws {
        let (a, b, type) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        let event = try await a.event(type, 1)
        a.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()
        let batch = try #require(try a.saved { try $0.unansweredBatches() }.first)
        let requests = try batch.members.map { try JSONCoding.decode(CreateEventRequest.self, from: $0.payload) }
        _ = try a.model.createEventsBatch(user: a.network.userId, requests, key: batch.key)  // taken; answer lost
        _ = await b.engine.performSync()
        a.clock.advance(by: 60)
        a.model.restore(backup)
        _ = await b.engine.performSync()  // b gives the event back first, then edits it
        a.clock.advance(by: 10)
        _ = try await b.events.updateEvent(id: event.id) { $0.notes = "from b" }
        _ = await b.engine.performSync()

        // a's give-back of its sent create finds a newer version held: kept, the create answered. The round stops
        // before any pull or read-back.
        a.network.setStickyError(http(503), for: .getChanges)
        a.network.resetCalls()
        _ = await a.engine.performSync()
        #expect(a.network.callCount(.giveBack) == 1 && a.network.callCount(.createEventsBatchWithIdempotency) == 0)
        #expect(try a.queue().isEmpty, "the create is answered")
        let acknowledged = try a.read { try $0.acknowledgedVersions(ids: [event.id]) }
        #expect(acknowledged.map(\.deleted) == [false], "a version the server holds, recorded at once")

        a.model.restore(backup, announcing: false)  // lost again, and nothing tells
        a.network.setStickyError(nil, for: .getChanges)
        let report = await a.engine.forceFullResync()
        #expect(report.outcome == .synced(bootstrapped: true), "\(report)")
        #expect(a.serverEvents.contains { $0.id == event.id }, "a alone gives it back")
        #expect(try a.events.event(id: event.id) != nil, "not taken away by the snapshot")
        _ = await b.engine.performSync()
        #expect(a.serverEvents.first { $0.id == event.id }?.notes == "from b", "b's later edit stands")
    }

    @Test("sync-engine §4.7.2 an unanswered batch whose members all left the queue is forgotten without a request")
    func unansweredBatchOfDeletedMembers() async throws {
        let (h, _, events) = try await prepared(2)
        h.network.enqueue(NetworkError.transport("lost"), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        for event in events { try await h.events.deleteEvent(id: event.id) }
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.network.callCount(.createEventsBatchWithIdempotency) == 0, "nothing waits for its answer")
        #expect(h.network.calls(of: .deleteEvent).count == 2, "the deletes go: the batch may have arrived")
        #expect(try h.saved { try $0.unansweredBatches() }.isEmpty)
    }
}
