import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Push")
struct PushTests {
    @Test("S28 S29 phases in dependency order; 60 event creates go as batches of 50 and 10")
    func orderAndBatches() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        h.network.resetCalls()
        let fence = try await h.events.createGeofence(name: "Office", latitude: 1, longitude: 1)
        var events: [Event] = []
        // Timestamps descending, so an order by timestamp or by id would differ from the queue's.
        for index in 0..<60 { events.append(try await h.event(type, Double(-index))) }
        _ = try await h.events.updateEventType(id: type.id) { $0.color = "red" }
        let newType = try await h.events.createEventType(name: "Run")
        _ = try await h.events.createPropertyDefinition(eventTypeId: newType.id, key: "km", label: "Km", type: .number)
        try await h.events.deleteGeofence(id: fence.id)
        let report = await h.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false) && report.pushed == 63)
        let pushes = h.network.calls.filter {
            $0.method != .getEventTypes && $0.method != .getChanges && $0.method != .getGeofences
        }
        // S28: Push order: event-type creates, geofence creates, property-definition creates, event creates…
        #expect(
            pushes.map(\.method) == [
                .createEventTypeWithIdempotency, .createPropertyDefinitionWithIdempotency,
                .createEventsBatchWithIdempotency, .createEventsBatchWithIdempotency, .updateEventTypeWithIdempotency,
            ], "the geofence create was cancelled by its delete, so neither is sent")
        let batches = h.network.calls(of: .createEventsBatchWithIdempotency).map {
            ($0.body?["events"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        #expect(batches.map(\.count) == [50, 10], "S29 chunks of batchSize")
        #expect(batches.flatMap { $0 } == events.map(\.id), "S29 items in queue order, inside and across batches")
    }

    @Test("S30 a single mutation's key is its client_request_id on every re-send; GET and DELETE carry none")
    func keys() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        _ = try await h.events.updateEventType(id: type.id) { $0.name = "Espresso" }
        let update = try #require(try h.mutations(of: type.id).first)
        h.network.enqueue(http(503), for: .updateEventTypeWithIdempotency)
        #expect(await h.engine.performSync().outcome == .partial(bootstrapped: false))
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let keys = h.network.calls(of: .updateEventTypeWithIdempotency).map(\.idempotencyKey)
        // S30: Every POST and PUT carries an Idempotency-Key; GET and DELETE never do. A single mutation's key is its…
        #expect(keys == [update.clientRequestId, update.clientRequestId])
        try await h.events.deleteEventType(id: type.id)
        h.network.resetCalls()
        _ = await h.engine.performSync()
        let unkeyed = h.network.calls.filter { [.deleteEventType, .getChanges, .getEventTypes].contains($0.method) }
        #expect(
            Set(unkeyed.map(\.method)) == [.deleteEventType, .getChanges, .getEventTypes],
            "the round sent a DELETE and GETs to look at")
        #expect(unkeyed.allSatisfy { $0.idempotencyKey == nil }, "S30 GET and DELETE never carry a key")
    }

    @Test("S31 an unanswered batch is re-sent under the same key, also after a 5xx; a first send's outcome changes it")
    func batchKeys() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        try await h.event(type, 1)
        try await h.event(type, 2)
        h.network.enqueue(.transport("lost"), for: .createEventsBatchWithIdempotency)
        #expect(await h.engine.performSync().outcome == .offline("lost"))
        h.network.enqueue(http(503), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        #expect(try h.queue().map(\.attempts) == [1, 1], "the 5xx is counted on every item")
        _ = await h.engine.performSync()
        var keys = h.network.calls(of: .createEventsBatchWithIdempotency).compactMap(\.idempotencyKey)
        // S31 (docs/error-recovery.md, "Lost answers"): the first send may have committed; only its key can replay
        // it, so a 5xx to a re-send leaves the batch unanswered under that key.
        #expect(keys.count == 3 && Set(keys).count == 1)
        #expect(try h.queue().isEmpty)

        h.network.resetCalls()
        try await h.event(type, 3)
        h.network.enqueue(http(503), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        _ = await h.engine.performSync()
        keys = h.network.calls(of: .createEventsBatchWithIdempotency).compactMap(\.idempotencyKey)
        // S31: A batch key is the SHA-256 (lowercase hex) of the members' client_request_id:attempts lines; an…
        #expect(
            keys.count == 2 && keys[0] != keys[1], "a 5xx to a first send stored nothing: the attempt changes the key")
        #expect(try h.queue().isEmpty)
    }

    @Test("R5 a batch that committed unanswered, then met a 5xx, replays under its key: a delete made since stands")
    func committedBatchAfterServerError() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let event = try await a.event(type, 1)
        // The lost send had committed: the server holds the event and the stored answer under the batch's key.
        #expect(try await a.syncLosingCommittedBatch().outcome == .offline("lost"))
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        try await b.events.deleteEvent(id: event.id)
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))

        a.network.enqueue(http(503), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()
        _ = await a.engine.performSync()
        let keys = a.network.calls(of: .createEventsBatchWithIdempotency).compactMap(\.idempotencyKey)
        #expect(keys.count == 3 && Set(keys).count == 1, "the replay comes under the key that committed")
        #expect(!a.serverEvents.contains { $0.id == event.id }, "not restored on the server")
        #expect(try a.events.event(id: event.id) == nil, "R5 the replay was read back: gone here too")
        #expect(try a.queue().isEmpty && a.owed().isEmpty)
    }

    @Test("R5 a committed, unanswered batch whose members died waits for their retry, then replays under its key")
    func committedBatchRetriedAfterDeadLetter() async throws {
        let a = try SyncHarness(configuration: try SyncConfiguration(maxAttempts: 1))
        let type = try await a.syncedType()
        let event = try await a.event(type, 1)
        try await a.syncLosingCommittedBatch()
        a.network.enqueue(http(503), for: .createEventsBatchWithIdempotency)
        _ = await a.engine.performSync()
        #expect(try a.queue().map(\.isDeadLetter) == [true])
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        try await b.events.deleteEvent(id: event.id)
        _ = await b.engine.performSync()
        _ = await a.engine.performSync()  // nothing live: the batch waits, unsent

        #expect(try await a.engine.retryDeadLetters() == 1)
        _ = await a.engine.performSync()
        let keys = a.network.calls(of: .createEventsBatchWithIdempotency).compactMap(\.idempotencyKey)
        #expect(keys.count == 3 && Set(keys).count == 1, "the retry replays under the key that committed")
        #expect(!a.serverEvents.contains { $0.id == event.id }, "not restored on the server")
        #expect(try a.events.event(id: event.id) == nil)
        let left = try a.queue()
        #expect(left.isEmpty, "\(left)")
    }

    @Test("An unanswered batch is re-sent with exactly its members; events created since go in a batch of their own")
    func unansweredBatchKeepsItsMembers() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let first = try await h.event(type, 1)
        let second = try await h.event(type, 2)
        h.network.enqueue(.transport("lost"), for: .createEventsBatchWithIdempotency)
        #expect(await h.engine.performSync().outcome == .offline("lost"))
        h.clock.advance(by: 5)
        let later = try await h.event(type, 3)

        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let batches = h.network.calls(of: .createEventsBatchWithIdempotency)
        func ids(_ call: MockNetworkClient.Call) -> [String] {
            call.body?["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        #expect(batches.count == 3)
        #expect(batches.map(ids) == [[first.id, second.id], [first.id, second.id], [later.id]])
        #expect(batches[0].idempotencyKey == batches[1].idempotencyKey, "the server replays instead of creating")
        #expect(try h.queue().isEmpty)
    }

    @Test("S32 first_sent_at is committed before the request leaves")
    func firstSentAt() async throws {
        let h = try SyncHarness()
        let type = try await h.events.createEventType(name: "Tea")
        let gate = h.network.hold(.createEventTypeWithIdempotency)
        let sync = Task { await h.engine.performSync() }
        await gate.waitForArrivals(1)
        // S32: first_sent_at is committed before the first request carrying the mutation is sent.
        #expect(try h.mutations(of: type.id).first?.firstSentAt == h.clock.now().roundedToMilliseconds)
        gate.release()
        #expect(await sync.value.pushed == 1)
    }

    @Test("S33 children and edits of an entity whose create fails wait: not sent, attempts unchanged")
    func deferral() async throws {
        let h = try SyncHarness()
        let type = try await h.events.createEventType(name: "Tea")
        let event = try await h.event(type)
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "cup" }
        h.network.enqueue(http(500), for: .createEventTypeWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.outcome == .partial(bootstrapped: true) && report.deferred == 1 && report.failed == 1)
        #expect(h.network.callCount(.createEventsBatchWithIdempotency) == 0, "S33 a create whose parent is open waits")
        #expect(try h.mutations(of: event.id).first?.attempts == 0, "S33 a deferred create keeps its attempts")
        #expect(try h.mutations(of: type.id).map(\.operation) == [.create], "the icon edit was folded into the create")
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: true), "the server had no change yet")
        #expect(h.serverEvents.map(\.id) == [event.id])
    }

    @Test("S33 an update or a delete of an entity whose sent create is still open waits: not sent, attempts unchanged")
    func deferralOfOwnEdits() async throws {
        let h = try SyncHarness()
        let type = try await h.events.createEventType(name: "Tea")
        let doomed = try await h.events.createEventType(name: "Doomed")
        h.network.enqueue(http(500), for: .createEventTypeWithIdempotency)
        h.network.enqueue(http(500), for: .createEventTypeWithIdempotency)
        _ = await h.engine.performSync()
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "cup" }
        // A delete queued beside a live create cannot come from EventStore (it removes a sent create), only from
        // another writer of the queue: put one there directly.
        try h.store.insertPendingMutation(
            PendingMutation.new(
                entityType: .eventType, operation: .delete, entityId: doomed.id, payload: nil, at: h.clock.now()))
        try h.store.save()
        #expect(try h.mutations(of: type.id).map(\.operation) == [.create, .update], "S12 the update is its own row")
        h.network.resetCalls()
        h.network.enqueue(http(500), for: .createEventTypeWithIdempotency)
        h.network.enqueue(http(500), for: .createEventTypeWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.deferred == 2 && report.failed == 2)
        #expect(h.network.callCount(.createEventTypeWithIdempotency) == 2)
        #expect(
            h.network.callCount(.updateEventTypeWithIdempotency) == 0 && h.network.callCount(.deleteEventType) == 0,
            "S33 neither the update nor the delete is sent while the create is open")
        let waiting = try h.queue().filter { $0.operation != .create }
        #expect(
            waiting.map(\.operation) == [.update, .delete] && waiting.allSatisfy { $0.attempts == 0 && !$0.isSent })
    }

    @Test("S33 an update naming a parent whose create is still open waits: not sent, attempts unchanged")
    func deferralOfUpdatesNamingAnOpenParent() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let event = try await h.event(type)
        #expect(await h.engine.performSync().outcome.name == "synced")
        let newType = try await h.events.createEventType(name: "Moved")
        _ = try await h.events.updateEvent(id: event.id) { $0.eventTypeId = newType.id }
        h.network.resetCalls()
        h.network.enqueue(http(500), for: .createEventTypeWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.deferred == 1 && report.failed == 1)
        #expect(
            h.network.callCount(.updateEventWithIdempotency) == 0,
            "S33 the event's update names the open type: not sent")
        #expect(try h.mutations(of: event.id).map { [$0.attempts, $0.isSent ? 1 : 0] } == [[0, 0]])
        #expect(await h.engine.performSync().outcome.name == "synced")
        #expect(h.serverEvents.first?.eventTypeId == newType.id, "sent once its parent exists")
    }

    @Test("S34 a payload that does not decode is not sent and costs one attempt")
    func undecodablePayload() async throws {
        let h = try SyncHarness()
        let broken = PendingMutation.new(
            entityType: .eventType, operation: .update, entityId: Build.id(7), payload: Data("{not json".utf8),
            at: h.clock.now())
        try h.store.insertPendingMutation(broken)
        try h.store.save()
        _ = await h.engine.performSync()
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 0)
        let row = try #require(try h.queue().first)
        // S34: A payload that does not decode is not sent and costs one attempt.
        #expect(row.attempts == 1 && row.lastError?.hasPrefix("invalid payload:") == true)
    }

    @Test(
        "S35 S36 a 2xx completes; a create marks the entity synced even when its row is gone; update and delete leave rows"
    )
    func successes() async throws {
        let h = try SyncHarness()
        let type = try await h.events.createEventType(name: "Tea")
        let ghost = try await h.events.createEventType(name: "Ghost")
        try h.store.deleteEventType(id: ghost.id)
        try h.store.save()
        #expect(await h.engine.performSync().pushed == 2)
        #expect(try h.events.eventType(id: type.id)?.syncStatus == .synced)
        #expect(try h.queue().isEmpty)
        _ = try await h.events.updateEventType(id: type.id) { $0.name = "Green tea" }
        try h.store.setSyncStatus(.pending, entityType: .eventType, id: type.id)
        try h.store.save()
        h.network.enqueue(.transport("no pull this time"), for: .getChanges)
        _ = await h.engine.performSync()
        #expect(try h.queue().isEmpty)
        let row = try h.events.eventType(id: type.id)
        // S35: A 2xx on a create completes the mutation and marks the entity synced; a missing local row does not…
        // S36 as R15 changes it: a 2xx on an update writes the answer (the server's merge) onto the row, synced.
        #expect(row?.syncStatus == .synced && row?.name == "Green tea", "the update's answer is the row now (R15)")
    }

    @Test("S37 a payload replaced while its request is in flight stays queued and goes out later under its own key")
    func replacedInFlight() async throws {
        let h = try SyncHarness()
        let (type, gate, sync) = try await h.syncHeldOnTypeUpdate { $0.name = "Version 1" }
        _ = try await h.events.updateEventType(id: type.id) { $0.name = "Version 2" }
        gate.release()
        #expect(await sync.value.outcome == .partial(bootstrapped: false))
        let queued = try #require(try h.mutations(of: type.id).first)
        #expect(queued.revision == 2 && queued.attempts == 0)
        h.network.stopHolding(.updateEventTypeWithIdempotency)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let sends = h.network.calls(of: .updateEventTypeWithIdempotency)
        #expect(sends.map { $0.body?["name"] } == ["Version 1", "Version 2"])
        // S37: If the payload was replaced while its request was in flight, the 2xx does not remove the row; the…
        #expect(sends[0].idempotencyKey != sends[1].idempotencyKey && sends[1].idempotencyKey == queued.clientRequestId)
        #expect(h.serverEventTypes.first?.name == "Version 2")
    }

    @Test("S38 R5 a duplicate create confirmed by existing_id or by N2 completes, deletes nothing, is read back")
    func confirmedDuplicates() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType("Seed")  // a cursor: the next round pulls instead of bootstrapping
        let first = try await h.events.createEventType(name: "A")
        let second = try await h.events.createEventType(name: "B")
        // The server holds both already (an earlier send arrived), under the names another device gave them.
        for (type, name) in [(first, "A on the server"), (second, "B on the server")] {
            _ = try h.model.createEventType(
                user: h.network.userId,
                CreateEventTypeRequest(id: type.id, name: name, color: type.color, icon: type.icon), key: nil)
        }
        let cursor = h.model.latestCursor(user: h.network.userId)
        try h.updateEngineState { $0.cursor = cursor }  // their feed entries are behind this device: only R5 tells
        h.network.enqueue(
            http(409, "conflict", message: "duplicate id", existingId: first.id.uppercased()),
            for: .createEventTypeWithIdempotency)
        h.network.enqueue(
            http(500, message: "duplicate key value violates unique constraint"), for: .createEventTypeWithIdempotency)
        h.network.enqueue(true, for: .entityExists)
        let report = await h.engine.performSync()
        #expect(report.pushed == 2 && report.failed == 0)
        #expect(h.network.calls(of: .entityExists).first?.arguments["id"] == second.id)
        // S38: A duplicate on a create whose existing_id is the entity id, or whose id N2 confirms, completes the…
        #expect(try [first.id, second.id].map { try h.events.eventType(id: $0)?.syncStatus } == [.synced, .synced])
        // R5: the stored entity may differ from what this device sent: each is read back in the same round.
        #expect(h.network.calls(of: .fetchEntity).map { $0.arguments["id"] } == [first.id, second.id])
        #expect(try h.events.eventType(id: first.id)?.name == "A on the server")
        #expect(report.owed == 0 && report.outcome == .synced(bootstrapped: false))
    }

    @Test("S39 a duplicate held by another entity is a dead letter now, 'conflict:', the entity kept and failed")
    func conflicts() async throws {
        let h = try SyncHarness()
        let first = try await h.events.createEventType(name: "A")
        let second = try await h.events.createEventType(name: "B")
        h.network.enqueue(
            http(409, "conflict", message: "duplicate name", existingId: Build.id(99)),
            for: .createEventTypeWithIdempotency)
        h.network.enqueue(http(409, "conflict", message: "duplicate name"), for: .createEventTypeWithIdempotency)
        h.network.enqueue(false, for: .entityExists)
        let report = await h.engine.performSync()
        #expect(report.outcome.name == "partial" && report.deadLettered == 2)
        let messages = [
            first.id: "conflict: duplicate name; held on the server by \(Build.id(99))",
            second.id: "conflict: duplicate name",
        ]
        for (id, message) in messages {
            let row = try #require(try h.mutations(of: id).first)
            // S39: A duplicate on a create held by another entity (different existing_id, or N2 says absent) makes…
            // the message names the holder when the server does (so `trendyctl types merge` can be run).
            #expect(row.isDeadLetter && row.attempts == 1 && row.lastError == message)
            #expect(try h.events.eventType(id: id)?.syncStatus == .failed)
        }
    }

    @Test("R6 S40 S41 a duplicate on an update is a dead letter now; a delete answered 404 or 5xx 'not found' succeeds")
    func droppedAndGone() async throws {
        let h = try SyncHarness()
        let a = try await h.syncedType("A")
        let b = try await h.syncedType("B")
        let c = try await h.syncedType("C")
        _ = try await h.events.updateEventType(id: a.id) { $0.icon = "x" }
        try await h.events.deleteEventType(id: b.id)
        try await h.events.deleteEventType(id: c.id)
        h.network.enqueue(http(409, "conflict", message: "duplicate name"), for: .updateEventTypeWithIdempotency)
        h.network.enqueue(http(404), for: .deleteEventType)
        h.network.enqueue(http(500, message: "event type not found"), for: .deleteEventType)
        let report = await h.engine.performSync()
        // S41: A delete answered 404, or 5xx with "not found", completes as a success.
        #expect(report.outcome == .partial(bootstrapped: false) && report.pushed == 2 && report.deadLettered == 1)
        // S40 (R6): an update refused as a uniqueness conflict is a dead letter at once, never a silently dropped edit.
        let dead = try #require(try h.mutations(of: a.id).first)
        #expect(dead.isDeadLetter && dead.attempts == 1 && dead.lastError == "conflict: duplicate name")
        let row = try h.events.eventType(id: a.id)
        #expect(row?.icon == "x" && row?.syncStatus == .failed)
        #expect(report.owed == 1, "read back once the dead letter is retried or discarded")
    }

    @Test("S42 an update answered 404 or 5xx 'not found' becomes a dead letter at once")
    func goneUpdates() async throws {
        let h = try SyncHarness()
        let a = try await h.syncedType("A")
        let b = try await h.syncedType("B")
        for type in [a, b] { _ = try await h.events.updateEventType(id: type.id) { $0.icon = "y" } }
        h.network.enqueue(http(404), for: .updateEventTypeWithIdempotency)
        h.network.enqueue(http(500, message: "Event type not found"), for: .updateEventTypeWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.deadLettered == 2)
        // S42: An update answered 404, or 5xx with "not found", becomes a dead letter at once.
        #expect(try h.queue().allSatisfy { $0.isDeadLetter && $0.lastError == "not found on server" })
        #expect(try h.events.eventType(id: a.id)?.syncStatus == .failed)
    }

    @Test("S43 a 401 stops the round: no pull, no attempt, nothing removed, authRequired")
    func unauthorizedPush() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        try await h.event(type)
        h.network.resetCalls()
        h.network.enqueue(http(401), for: .createEventsBatchWithIdempotency)
        let report = await h.engine.performSync()
        #expect(report.outcome == .authRequired && h.network.getChangesCallCount == 0)
        #expect(try h.queue().first?.attempts == 0 && h.queue().count == 1)
        // S43: A 401 during the push stops the round: no pull, no attempt consumed, nothing removed, state…
        #expect(await h.engine.snapshot.state == .authRequired)
    }

    @Test("S44 a transport error stops the push at once: later units unsent, no attempt, no pull, offline")
    func transportDuringPush() async throws {
        let h = try SyncHarness()
        let a = try await h.syncedType("A")
        let b = try await h.syncedType("B")
        _ = try await h.events.updateEventType(id: a.id) { $0.icon = "1" }
        _ = try await h.events.updateEventType(id: b.id) { $0.icon = "2" }
        h.network.resetCalls()
        h.network.enqueue(.transport("connection lost"), for: .updateEventTypeWithIdempotency)
        let report = await h.engine.performSync()
        // S44: A transport error during the push stops the push at once: later units are not sent, no attempt is…
        #expect(report.outcome == .offline("connection lost") && report.deferred == 1)
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 1 && h.network.getChangesCallCount == 0)
        #expect(try h.queue().allSatisfy { $0.attempts == 0 })
        #expect(await h.engine.snapshot.state == .offline)
    }

    @Test("S45 S46 other 4xx, 5xx and decoding errors cost one attempt each; the fifth makes a dead letter")
    func countedFailures() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "z" }
        let failures = [
            http(400, "validation", message: "bad"), http(500), .decoding(status: 200, message: "html"), http(503),
            http(422),
        ]
        for (round, failure) in failures.enumerated() {
            h.network.enqueue(failure, for: .updateEventTypeWithIdempotency)
            h.clock.advance(by: 10)
            let report = await h.engine.performSync()
            let row = try #require(try h.queue().first)
            // S45: Any other 4xx, a 5xx or a decoding error adds one attempt with last_error and last_attempt_at; the…
            #expect(row.attempts == round + 1 && row.lastAttemptAt == h.clock.now().roundedToMilliseconds)
            #expect(h.network.callCount(.updateEventTypeWithIdempotency) == round + 1, "not retried within the round")
            // S46: The failure that brings attempts to maxAttempts turns the mutation into a dead letter: state…
            #expect(row.isDeadLetter == (round == 4) && report.deadLettered == (round == 4 ? 1 : 0))
        }
        #expect(try h.queue().first?.lastError == "HTTP 422")
        #expect(try h.events.eventType(id: type.id)?.syncStatus == .failed)
        _ = await h.engine.performSync()
        #expect(h.network.callCount(.updateEventTypeWithIdempotency) == 5, "a dead letter is never pushed (S88)")
    }

    @Test("S54 progress starts at syncing(0, N), grows after every unit, never decreases or passes N")
    func progress() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        for index in 0..<3 { try await h.event(type, Double(index)) }
        for name in ["B", "C"] { try await h.events.createEventType(name: name) }
        let recorder = await SnapshotRecorder(h.engine)
        _ = await h.engine.performSync()
        let progress = await recorder.finish().compactMap { snapshot -> (Int, Int)? in
            if case .syncing(let synced, let total) = snapshot.state, total > 0 { return (synced, total) }
            return nil
        }
        #expect(progress.first.map { $0 == (0, 5) } == true)
        #expect(progress.allSatisfy { $0.1 == 5 && $0.0 <= 5 })
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        // S54: Progress is syncing(0, N) at push start and grows after every unit by the number of push-set mutations…
        #expect(progress.map(\.0).contains(2) && progress.last?.0 == 5)
    }

    @Test("cancelling a sync ends the round 'cancelled' with no attempt used and nothing half-applied")
    func cancellation() async throws {
        let h = try SyncHarness()
        let (_, _, sync) = try await h.syncHeldOnTypeUpdate { $0.icon = "c" }
        sync.cancel()
        let report = await sync.value
        #expect(report.outcome == .error("cancelled"))
        #expect(try h.queue().first.map { $0.attempts == 0 && $0.isLive } == true)
        #expect(try h.history().first?.outcome == "error")
    }

    @Test("R15 N14 a pushed delete is recorded at the server's time, not the device's clock; a repeated one's 404 too")
    func deleteRecordedAtServerTime() async throws {
        // The server's clock runs an hour ahead of the device's.
        let serverClock = ManualClock(now: Date(millisecondsSince1970: 1_768_614_292_123 + 3_600_000))
        let h = try SyncHarness(model: InMemoryTrendyServer(clock: serverClock, futureIdTolerance: nil))
        let first = try await h.syncedType("First")
        let second = try await h.syncedType("Second")
        try await h.events.deleteEventType(id: first.id)
        try await h.events.deleteEventType(id: second.id)
        // The second delete was made before, its answer lost: the device's send meets 404 `deleted`.
        try h.model.deleteEventType(user: h.network.userId, id: second.id)
        serverClock.advance(by: 5)
        h.network.setStickyError(http(503), for: .getChanges)  // no feed entry brings the time instead
        _ = await h.engine.performSync()
        #expect(try h.queue().isEmpty)
        let versions = try h.read { try $0.acknowledgedVersions(ids: [first.id, second.id]) }
        for type in [first, second] {
            let version = versions.first { $0.id == type.id }
            let serverTime = try #require(h.model.deletedAt(user: h.network.userId, .eventType, id: type.id))
            #expect(version?.deleted == true && version?.acknowledgedAt == serverTime, "\(String(describing: version))")
        }
    }

    @Test(
        "R5 R15 sync-engine §1.7 a create the server holds already, with an edit folded into it (a database put back from a backup), keeps the edit: it goes on as an update",
        arguments: [true, false])
    func duplicateCreateKeepsFoldedEdit(givesBack: Bool) async throws {
        let (a, _, _) = try await twoDevices()
        let tea = try await a.syncedType("Tea")
        // The database put back from a backup taken while Tea's create was queued: the create is queued again,
        // never sent as far as this database knows, though the server holds Tea.
        let store = a.stores.makeDataStore()
        let row = try #require(try store.findEventType(id: tea.id))
        _ = try store.enqueueMutation(
            entityType: .eventType, operation: .create, entityId: tea.id, payload: try MutationPayload.create(row),
            at: a.clock.now())
        try store.save()
        // An edit made now folds into that create (sync-engine §1.7), and is remembered as such.
        _ = try await a.events.updateEventType(id: tea.id) { $0.color = "#C0FFEE" }
        let create = try #require(try a.mutations(of: tea.id).first)
        #expect(create.operation == .create && create.foldedEdits.map(MutationPayload.members(setBy:)) == ["color"])
        // The device holds Tea acknowledged, so the create goes back as that version (R15), which the server holds:
        // `kept`. A server without give-backs answers the create's POST as a duplicate of the same entity (R5).
        if !givesBack { a.network.setStickyError(http(404, "not_found"), for: .giveBack) }

        a.network.resetCalls()
        _ = await a.engine.performSync()
        _ = await a.engine.performSync()
        #expect(a.network.callCount(.createEventTypeWithIdempotency) == (givesBack ? 0 : 1))
        // Either way the create completes as the entity the server holds, its folded edit goes on as an update, and
        // the read-back that follows keeps it.
        #expect(a.serverEventTypes.first { $0.id == tea.id }?.fields.color == "#C0FFEE", "the edit reached the server")
        #expect(try a.events.eventType(id: tea.id)?.color == "#C0FFEE")
        #expect(try a.queue().isEmpty && a.owed().isEmpty)
    }
}
