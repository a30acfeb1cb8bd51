import Foundation
import Models
import Protocols
import TestSupport
import Testing

extension DataStoreContract.Subject {
    @discardableResult
    func enqueue(
        _ operation: MutationOperation, _ entityType: MutationEntityType = .event, id: String, payload: Data? = nil
    ) throws -> EnqueueResult {
        try saved { store in
            try store.enqueueMutation(
                entityType: entityType, operation: operation, entityId: id, payload: payload, at: now)
        }
    }

    func queue() throws -> [PendingMutation] { try read { try $0.fetchPendingMutations() } }

    /// Marks the entity's mutations sent, as a push claim does.
    @discardableResult
    func claim(_ ids: [String]) throws -> [PendingMutation] { try saved { try $0.claimMutations(ids: ids, at: now) } }

    func json(_ data: Data?) throws -> JSONValue {
        try JSONCoding.decode(JSONValue.self, from: try #require(data))
    }
}

// MARK: - Coalescing (sync-engine §1.7)

extension DataStoreContract {
    static let createEvent = Build.event(id: Build.id(1), notes: "first")
    static var createPayload: Data { get throws { try MutationPayload.create(createEvent) } }
    static func updatePayload(notes: String?) throws -> Data {
        var event = createEvent
        event.notes = notes
        return try MutationPayload.update(event)
    }

    static let coalescingChecks: [Check] = [
        check("S9 the queue holds one mutation per entity and operation, in (created_at, seq) order") { subject in
            let early = subject.now
            try subject.enqueue(.create, id: Build.id(3), payload: try createPayload)
            try subject.enqueue(.delete, .geofence, id: Build.id(2))
            try subject.enqueue(.update, .eventType, id: Build.id(1), payload: Data("{\"name\":\"A\"}".utf8))
            subject.clock.set(now: early.addingTimeInterval(-60))
            try subject.enqueue(.delete, .eventType, id: Build.id(9))
            let queue = try subject.queue()
            // S9: The queue holds at most one mutation per (entity type, entity id, operation) and is read in…
            #expect(queue.map(\.entityId) == [Build.id(9), Build.id(3), Build.id(2), Build.id(1)])
            #expect(queue.allSatisfy { $0.state == .pending && $0.revision == 1 && $0.attempts == 0 })
            #expect(queue.allSatisfy { UUIDv7.isValid($0.id) && UUIDv7.isValid($0.clientRequestId) })
            #expect(queue.first?.payload == nil, "a delete has no payload")
        },
        check("S10 a second update replaces the payload, keeps the queue position, bumps revision and key") { subject in
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "a"))
            try subject.enqueue(.update, id: Build.id(2), payload: try updatePayload(notes: "other"))
            let before = try #require(try subject.queue().first)
            subject.clock.advance(by: 5)
            #expect(try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "b")) == .replaced)
            let queue = try subject.queue()
            let after = try #require(queue.first)
            #expect(queue.count == 2 && after.id == before.id && after.createdAt == before.createdAt)
            // S10: A second update of an entity replaces the queued update's payload, keeps its queue position…
            #expect(after.revision == before.revision + 1 && after.clientRequestId != before.clientRequestId)
            #expect(try subject.json(after.payload)["notes"] == "b")
            #expect(after.updatedAt == subject.now.roundedToMilliseconds)
        },
        check("S11 an update of an entity whose create is unsent is folded into the create") { subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            let create = try #require(try subject.queue().first)
            #expect(
                try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "edited")) == .folded)
            let queue = try subject.queue()
            #expect(queue.count == 1)
            let folded = try #require(queue.first)
            #expect(folded.operation == .create && folded.id == create.id && folded.revision == 2)
            #expect(folded.clientRequestId != create.clientRequestId)
            let body = try subject.json(folded.payload)
            #expect(body["notes"] == "edited" && body["id"] == .string(Build.id(1)))
            // S11: An update of an entity whose create is unsent is folded into the create's payload; no update row…
            #expect(
                folded.payload
                    == (try JSONCoding.encode(
                        JSONCoding.decode(CreateEventRequest.self, from: #require(folded.payload)))),
                "the folded payload is what the client re-encodes")
        },
        check("sync-engine §1.7 a fold keeps the update bodies it folded, merged, as the create's folded edits") {
            subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            #expect(try subject.queue().first?.foldedEdits == nil, "a create never edited has none")
            try subject.enqueue(.update, id: Build.id(1), payload: Data(#"{"notes":"first"}"#.utf8))
            try subject.enqueue(
                .update, id: Build.id(1), payload: Data(#"{"notes":"second","location_name":"Home"}"#.utf8))
            let folded = try #require(try subject.queue().first)
            #expect(folded.operation == .create)
            let edits = try subject.json(folded.foldedEdits)
            #expect(edits["notes"] == "second" && edits["location_name"] == "Home", "merged, the newer value winning")
        },
        check("fold overlay: null removes a key, properties null is {}, keys outside the create shape are dropped") {
            subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            try subject.enqueue(
                .update, id: Build.id(1),
                payload: Data(#"{"notes":null,"properties":null,"location_name":"Home","id":"x"}"#.utf8))
            let body = try subject.json(try subject.queue().first?.payload)
            #expect(body["notes"] == nil && body["properties"] == .object([:]) && body["location_name"] == "Home")
            #expect(body["id"] == .string(Build.id(1)))

            let fence = Build.geofence(id: Build.id(2))
            try subject.enqueue(.create, .geofence, id: fence.id, payload: try MutationPayload.create(fence))
            try subject.enqueue(.update, .geofence, id: fence.id, payload: try MutationPayload.update(fence))
            let fenceBody = try subject.json(try subject.queue().last?.payload)
            #expect(fenceBody["ios_region_identifier"] == nil && fenceBody["name"] == "Office")

            let definition = Build.propertyDefinition(id: Build.id(3), eventTypeId: Build.id(7))
            try subject.enqueue(
                .create, .propertyDefinition, id: definition.id, payload: try MutationPayload.create(definition))
            try subject.enqueue(
                .update, .propertyDefinition, id: definition.id,
                payload: Data(#"{"event_type_id":"other","label":"Renamed","default_value":null}"#.utf8))
            let definitionBody = try subject.json(try subject.queue().last?.payload)
            #expect(definitionBody["event_type_id"] == .string(Build.id(7)) && definitionBody["label"] == "Renamed")
        },
        check("S12 an update after a sent create is queued separately; the create's payload and key stay") { subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            let sent = try #require(try subject.claim(try subject.queue().map(\.id)).first)
            #expect(sent.firstSentAt != nil)
            #expect(try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x")) == .inserted)
            let queue = try subject.queue()
            #expect(queue.map(\.operation) == [.create, .update])
            // S12: An update of an entity whose create was sent creates a separate update row; the create's payload…
            #expect(queue[0].payload == sent.payload && queue[0].clientRequestId == sent.clientRequestId)
            #expect(queue[0].revision == sent.revision)
        },
        check("S13 a delete of an unsent create cancels it and its update; nothing is queued") { subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x"))
            // S13: A delete of an entity whose create is unsent removes the create (and any update) and queues…
            #expect(try subject.enqueue(.delete, id: Build.id(1)) == .cancelled)
            #expect(try subject.queue().isEmpty)
        },
        check("S14 a delete after a sent create or an update removes them and queues the delete") { subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            try subject.claim(try subject.queue().map(\.id))
            #expect(try subject.enqueue(.delete, id: Build.id(1)) == .inserted)
            #expect(try subject.queue().map(\.operation) == [.delete])

            try subject.enqueue(.create, id: Build.id(2), payload: try createPayload)
            try subject.claim(try subject.queue().filter { $0.entityId == Build.id(2) }.map(\.id))
            try subject.enqueue(.update, id: Build.id(2), payload: try updatePayload(notes: "x"))
            try subject.enqueue(.update, id: Build.id(3), payload: try updatePayload(notes: "y"))
            try subject.enqueue(.delete, id: Build.id(2))
            try subject.enqueue(.delete, id: Build.id(3))
            let operations = try subject.queue().map { "\($0.entityId.suffix(1)):\($0.operation.rawValue)" }
            // S14: A delete of an entity with a sent create or a queued update removes those rows and queues the…
            #expect(operations == ["1:delete", "2:delete", "3:delete"])
        },
        check("S15 a create or update after a queued delete fails with entityDeleted; a second delete is a no-op") {
            subject in
            try subject.enqueue(.delete, id: Build.id(1))
            #expect(throws: DataStoreError.entityDeleted(.event, entityId: Build.id(1))) {
                try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x"))
            }
            // S15: A create or update after a queued delete fails with entityDeleted; a second delete is a no-op.
            #expect(throws: DataStoreError.entityDeleted(.event, entityId: Build.id(1))) {
                try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            }
            #expect(try subject.enqueue(.delete, id: Build.id(1)) == .noOp)
            #expect(try subject.queue().count == 1)
        },
        check("a create over an unsent create replaces it; after a sent create or an update it is invalidSequence") {
            subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            #expect(try subject.enqueue(.create, id: Build.id(1), payload: try createPayload) == .replaced)
            #expect(try subject.queue().first?.revision == 2)
            try subject.claim(try subject.queue().map(\.id))
            #expect(throws: DataStoreError.invalidSequence(.event, entityId: Build.id(1), operation: .create)) {
                try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            }
            try subject.enqueue(.update, id: Build.id(2), payload: try updatePayload(notes: "x"))
            #expect(throws: DataStoreError.invalidSequence(.event, entityId: Build.id(2), operation: .create)) {
                try subject.enqueue(.create, id: Build.id(2), payload: try createPayload)
            }
        },
        check("a local edit revives a dead update or a dead unsent create") { subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            try subject.enqueue(.update, id: Build.id(2), payload: try updatePayload(notes: "x"))
            for row in try subject.queue() {
                try subject.saved { store throws in
                    _ = try store.recordMutationFailure(
                        id: row.id, revision: row.revision, message: "boom", at: subject.now, maxAttempts: 1,
                        deadLetterNow: false)
                }
            }
            #expect(try subject.queue().allSatisfy(\.isDeadLetter))
            #expect(try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "y")) == .folded)
            #expect(try subject.enqueue(.update, id: Build.id(2), payload: try updatePayload(notes: "z")) == .replaced)
            let queue = try subject.queue()
            #expect(queue.allSatisfy { $0.isLive && $0.attempts == 0 && $0.lastError == nil })
        },
    ]
}

// MARK: - Outbox operations (DS2–DS5, seed mutation methods)

extension DataStoreContract {
    static let outboxChecks: [Check] = [
        check("insertPendingMutation rejects a second row with the same key; deleting a missing row is a no-op") {
            subject in
            let mutation = Build.mutation(.update, of: .geofence, entityId: Build.id(1))
            try subject.saved { try $0.insertPendingMutation(mutation) }
            #expect(throws: DataStoreError.duplicateMutation(.geofence, entityId: Build.id(1), operation: .update)) {
                try subject.saved {
                    try $0.insertPendingMutation(Build.mutation(.update, of: .geofence, entityId: Build.id(1)))
                }
            }
            try subject.read { store throws in
                #expect(try store.hasPendingMutation(entityId: Build.id(1), entityType: .geofence, operation: .update))
                #expect(
                    !(try store.hasPendingMutation(entityId: Build.id(1), entityType: .geofence, operation: .create)))
                #expect(!(try store.hasPendingMutation(entityId: Build.id(1), entityType: .event, operation: .update)))
            }
            try subject.saved { store throws in
                try store.deletePendingMutation(Build.mutation(.delete, entityId: Build.id(9)))
                try store.deletePendingMutation(mutation)
            }
            #expect(try subject.queue().isEmpty)
        },
        check("DS2 claim stamps first_sent_at once and returns live rows in the requested order") { subject in
            for number in 1...3 { try subject.enqueue(.create, id: Build.id(number), payload: try createPayload) }
            let ids = try subject.queue().map(\.id)
            try subject.saved { store throws in
                _ = try store.recordMutationFailure(
                    id: ids[2], revision: 1, message: "x", at: subject.now, maxAttempts: 1, deadLetterNow: true)
            }
            let firstClaim = subject.now.roundedToMilliseconds
            let claimed = try subject.claim([ids[1], ids[0], ids[2], Build.id(99)])
            #expect(claimed.map(\.id) == [ids[1], ids[0]], "dead and missing rows are left out")
            #expect(claimed.allSatisfy { $0.firstSentAt == firstClaim })
            subject.clock.advance(by: 10)
            let again = try subject.claim([ids[0]])
            #expect(again.first?.firstSentAt == firstClaim, "first_sent_at is never overwritten")
            #expect(try subject.queue().first { $0.id == ids[0] }?.firstSentAt == firstClaim)
        },
        check("DS3 completion removes a row only at the claimed revision") { subject in
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "a"))
            let claimed = try #require(try subject.claim(try subject.queue().map(\.id)).first)
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "b"))
            #expect(try subject.saved { try $0.completeMutation(id: claimed.id, revision: claimed.revision) } == false)
            let newer = try #require(try subject.queue().first)
            #expect(newer.revision == claimed.revision + 1)
            #expect(try subject.saved { try $0.completeMutation(id: newer.id, revision: newer.revision) })
            #expect(try subject.queue().isEmpty)
            #expect(try subject.saved { try $0.completeMutation(id: newer.id, revision: newer.revision) } == false)
        },
        check("DS4 S46 failures count attempts and dead-letter at maxAttempts or at once, marking the entity failed") {
            subject in
            let event = Build.event(id: Build.id(1), syncStatus: .pending)
            try subject.saved { store throws in
                try store.upsertEvent(id: event.id) { $0 = event }
                try store.setSyncStatus(.pending, entityType: .event, id: event.id)
            }
            try subject.enqueue(.create, id: event.id, payload: try createPayload)
            try subject.enqueue(.update, .geofence, id: Build.id(2), payload: Data("{}".utf8))
            let rows = try subject.queue()
            func fail(_ row: PendingMutation, deadLetterNow: Bool = false) throws -> FailureResult {
                try subject.saved { store throws in
                    try store.recordMutationFailure(
                        id: row.id, revision: row.revision, message: "HTTP 500", at: subject.now, maxAttempts: 3,
                        deadLetterNow: deadLetterNow)
                }
            }
            #expect(try fail(rows[0]) == .counted(attempts: 1))
            #expect(try fail(rows[0]) == .counted(attempts: 2))
            #expect(try subject.read { try $0.findEvent(id: event.id)?.syncStatus } == .pending)
            #expect(try fail(rows[0]) == .deadLettered(attempts: 3))
            let dead = try #require(try subject.queue().first)
            #expect(dead.state == .failed && dead.lastError == "HTTP 500")
            #expect(dead.lastAttemptAt == subject.now.roundedToMilliseconds && dead.payload == rows[0].payload)
            #expect(dead.revision == rows[0].revision, "dead-lettering is not a new revision")
            #expect(try subject.read { try $0.findEvent(id: event.id)?.syncStatus } == .failed)
            // S46: The failure that brings attempts to maxAttempts turns the mutation into a dead letter: state…
            #expect(try fail(rows[1], deadLetterNow: true) == .deadLettered(attempts: 1))
            #expect(try subject.read { try $0.countMutations() } == MutationCounts(pending: 0, failed: 2))
        },
        check("DS4 a failure is skipped when the row is gone or its revision changed") { subject in
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "a"))
            let claimed = try #require(try subject.claim(try subject.queue().map(\.id)).first)
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "b"))
            let skipped = try subject.saved { store throws in
                try store.recordMutationFailure(
                    id: claimed.id, revision: claimed.revision, message: "x", at: subject.now, maxAttempts: 1,
                    deadLetterNow: true)
            }
            #expect(skipped == .skipped)
            #expect(try subject.queue().first?.attempts == 0)
            let gone = try subject.saved { store throws in
                try store.recordMutationFailure(
                    id: Build.id(99), revision: 1, message: "x", at: subject.now, maxAttempts: 1, deadLetterNow: true)
            }
            #expect(gone == .skipped)
        },
        check("DS5 reviving a dead create rebuilds its payload from the row, absorbs its update, entity pending") {
            subject in
            var event = Build.event(id: Build.id(1), notes: "v1")
            try subject.saved { store throws in
                try store.upsertEvent(id: event.id) { $0 = event }
                _ = try store.enqueueMutation(
                    entityType: .event, operation: .create, entityId: event.id,
                    payload: try MutationPayload.create(event), at: subject.now)
            }
            let create = try #require(try subject.claim(try subject.queue().map(\.id)).first)
            event.notes = "v2"
            try subject.saved { store throws in
                try store.upsertEvent(id: event.id) { $0 = event }
                _ = try store.enqueueMutation(
                    entityType: .event, operation: .update, entityId: event.id,
                    payload: try MutationPayload.update(event), at: subject.now)
                _ = try store.recordMutationFailure(
                    id: create.id, revision: create.revision, message: "conflict: x", at: subject.now, maxAttempts: 5,
                    deadLetterNow: true)
            }
            #expect(try subject.read { try $0.findEvent(id: event.id)?.syncStatus } == .failed)
            #expect(try subject.saved { try $0.reviveMutation(id: create.id, at: subject.now) })
            let queue = try subject.queue()
            let revived = try #require(queue.first)
            #expect(queue.count == 1 && revived.operation == .create && revived.isLive)
            #expect(revived.attempts == 0 && revived.lastError == nil && revived.revision == create.revision + 1)
            #expect(revived.clientRequestId != create.clientRequestId)
            #expect(revived.payload == (try MutationPayload.create(event)))
            #expect(try subject.read { try $0.findEvent(id: event.id)?.syncStatus } == .pending)
            #expect(try subject.saved { try $0.reviveMutation(id: create.id, at: subject.now) } == false)
        },
        check("DS5 (R8) reviving a dead update makes it live with a new key, rebuilt from the row") { subject in
            let stored = try subject.saved { store in
                try store.upsertEvent(id: Build.id(1)) { $0.eventTypeId = Build.id(9) }
            }
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x"))
            let row = try #require(try subject.queue().first)
            try subject.saved { store throws in
                _ = try store.recordMutationFailure(
                    id: row.id, revision: row.revision, message: "not found on server", at: subject.now,
                    maxAttempts: 5, deadLetterNow: true)
                #expect(try store.reviveMutation(id: row.id, at: subject.now))
            }
            let revived = try #require(try subject.queue().first)
            #expect(revived.isLive && revived.clientRequestId != row.clientRequestId)
            #expect(
                revived.payload == (try MutationPayload.update(stored)),
                "R8: the revived update carries the row as it is now, not the payload that failed")
            #expect(try subject.read { try $0.findEvent(id: Build.id(1))?.syncStatus } == .failed)
            try subject.saved { store in try store.deleteEvent(id: Build.id(1)) }
            try subject.saved { store throws in
                let live = try #require(try store.fetchPendingMutations().first)
                _ = try store.recordMutationFailure(
                    id: live.id, revision: live.revision, message: "x", at: subject.now, maxAttempts: 5,
                    deadLetterNow: true)
                #expect(try store.reviveMutation(id: live.id, at: subject.now))
            }
            #expect(try subject.queue().first?.payload == revived.payload, "without a row the payload stays")
        },
    ]
}
