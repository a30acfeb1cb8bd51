import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Event types

extension NetworkClientContract {
    static let eventTypeChecks: [Check] = [
        check("event types: create, list in creation order, update, exists, delete") { subject in
            let client = subject.client
            #expect(try await client.getEventTypes().isEmpty)
            let first = try await eventType(client, name: "Coffee")
            let second = try await eventType(client, name: "Run")
            #expect(first.name == "Coffee" && first.color == "#8B4513" && first.icon == "cup")
            #expect(!first.userId.isEmpty && first.createdAt != nil && first.updatedAt != nil)
            #expect(try await client.getEventTypes().map(\.id) == [first.id, second.id])
            let renamed = try await client.updateEventTypeWithIdempotency(
                id: first.id, UpdateEventTypeRequest(name: "Espresso", color: nil, icon: nil), idempotencyKey: key())
            #expect(renamed.name == "Espresso" && renamed.color == "#8B4513", "null leaves a required field unchanged")
            #expect(try await client.entityExists(.eventType, id: first.id))
            try await client.deleteEventType(id: first.id)
            #expect(try await !client.entityExists(.eventType, id: first.id))
            #expect(try await client.getEventTypes().map(\.id) == [second.id])
        },
        check("names are unique byte for byte: Café composed and decomposed are two names; the same bytes conflict") {
            subject in
            let client = subject.client
            let composed = try await eventType(client, name: "Caf\u{E9}")
            let decomposed = try await eventType(client, name: "Cafe\u{301}")
            #expect(composed.name == decomposed.name, "Swift calls them equal; the server keeps both")
            let listed = try await client.getEventTypes()
            #expect(composed.id != decomposed.id && listed.count == 2)
            let failure = await expectFailure(409, "conflict") { _ = try await eventType(client, name: "Caf\u{E9}") }
            #expect(failure?.existingId == composed.id)
        },
        check("an identical create re-sent returns the stored row; other content under the same id is 409 duplicate_id")
        { subject in
            let client = subject.client
            let request = CreateEventTypeRequest(id: newId(), name: "Read", color: "#000000", icon: "book")
            let created = try await client.createEventTypeWithIdempotency(request, idempotencyKey: key())
            let again = try await client.createEventTypeWithIdempotency(request, idempotencyKey: key())
            #expect(again == created)
            var changed = request
            changed.name = "Write"
            let failure = await expectFailure(409, "conflict") {
                _ = try await client.createEventTypeWithIdempotency(changed, idempotencyKey: key())
            }
            #expect(failure?.existingId == request.id)
            #expect(try await client.getChanges(since: 0, limit: 100).changes.count == 1, "one feed row")
        },
        check("a name already taken is a 409 conflict naming the holder, with \"duplicate\" in its message") {
            subject in
            let holder = try await eventType(subject.client, name: "Swim")
            let failure = await expectFailure(409, "conflict") {
                _ = try await eventType(subject.client, name: "Swim")
            }
            #expect(failure?.existingId == holder.id)
            #expect(failure?.message?.lowercased().contains("duplicate") == true)
        },
        check("required strings may not be empty: 400 validation") { subject in
            await expectFailure(400, "validation") {
                _ = try await subject.client.createEventTypeWithIdempotency(
                    CreateEventTypeRequest(id: newId(), name: "", color: "#fff", icon: "x"), idempotencyKey: key())
            }
        },
        check("idempotency: a re-sent key replays without a second feed row; another body under it is 422") {
            client, type in
            let cursor = try await client.getLatestCursor()
            let sharedKey = key()
            let update = UpdateEventTypeRequest(name: "Renamed", color: type.color, icon: type.icon)
            let first = try await client.updateEventTypeWithIdempotency(id: type.id, update, idempotencyKey: sharedKey)
            var replay = try await client.updateEventTypeWithIdempotency(id: type.id, update, idempotencyKey: sharedKey)
            #expect(!first.replayed && replay.replayed, "R5: a replayed answer says so")
            replay.replayed = false
            #expect(replay == first)
            #expect(try await changesAfter(cursor, client).map(\.operation) == ["update"])
            await expectFailure(422, "idempotency_mismatch") {
                _ = try await client.updateEventTypeWithIdempotency(
                    id: type.id, UpdateEventTypeRequest(name: "Other", color: nil, icon: nil), idempotencyKey: sharedKey
                )
            }
            _ = try await client.updateEventTypeWithIdempotency(id: type.id, update, idempotencyKey: key())
            #expect(try await changesAfter(cursor, client).count == 1, "a PUT that changes nothing writes no row")
        },
        check("missing entities: update, delete and the property list are 404; a repeated delete is 404 deleted") {
            subject in
            let client = subject.client
            let missing = newId()
            await expectFailure(404, "not_found") {
                _ = try await client.updateEventTypeWithIdempotency(
                    id: missing, UpdateEventTypeRequest(name: "x", color: nil, icon: nil), idempotencyKey: key())
            }
            await expectFailure(404, "not_found") { try await client.deleteGeofence(id: missing) }
            await expectFailure(404, "not_found") { _ = try await client.getPropertyDefinitions(eventTypeId: missing) }
            await expectFailure(404, "not_found") {
                _ = try await client.updatePropertyDefinitionWithIdempotency(
                    id: missing, UpdatePropertyDefinitionRequest { $0.displayOrder = 1 }, idempotencyKey: key())
            }
            let type = try await eventType(client)
            let event = try await client.createEventWithIdempotency(
                NetworkClientContract.event(type: type.id, at: instant(1)), idempotencyKey: key())
            try await client.deleteEvent(id: event.id)
            // api-v1 §6.6: the server remembers the delete, so "deleted" is told from "never known".
            await expectFailure(404, "deleted") { try await client.deleteEvent(id: event.id) }
            #expect(try await !client.entityExists(.event, id: event.id))
        },
        check("users are isolated: another user sees nothing, cannot touch ids, and a taken id is 409 id_taken") {
            subject in
            let type = try await eventType(subject.client, name: "Private")
            let other = subject.otherUser
            #expect(try await other.getEventTypes().isEmpty)
            #expect(try await other.getChanges(since: 0, limit: 100).changes.isEmpty)
            #expect(try await !other.entityExists(.eventType, id: type.id))
            await expectFailure(404, "not_found") {
                _ = try await other.updateEventTypeWithIdempotency(
                    id: type.id, UpdateEventTypeRequest(name: "Mine", color: nil, icon: nil), idempotencyKey: key())
            }
            await expectFailure(404, "not_found") { try await other.deleteEventType(id: type.id) }
            let taken = await expectFailure(409, "conflict") {
                _ = try await other.createEventTypeWithIdempotency(
                    CreateEventTypeRequest(id: type.id, name: "Private", color: "#8B4513", icon: "cup"),
                    idempotencyKey: key())
            }
            #expect(taken != nil && taken?.existingId == nil, "another user's id is never revealed")
            let batch = try await other.createEventsBatch(
                [NetworkClientContract.event(type: type.id, at: instant(2))], idempotencyKey: key())
            #expect(batch.created.isEmpty && batch.errors.first?.type == "validation")
            #expect(try await subject.client.getEventTypes().map(\.name) == ["Private"])
        },
    ]
}

// MARK: - Events

extension NetworkClientContract {
    static let eventChecks: [Check] = [
        check("S29 batch: per-item results matched by id; one failing item never affects the others") { client, type in
            let first = event(type: type.id, at: instant(10))
            let duplicate = event(type: type.id, at: instant(10))
            let orphan = event(type: newId(), at: instant(11))
            let last = event(type: type.id, at: instant(12))
            let result = try await client.createEventsBatch([first, duplicate, orphan, last], idempotencyKey: key())
            #expect(result.total == 4 && result.success == 2 && result.failed == 2)
            #expect(result.httpStatus == 207, "a batch with a failed item is answered 207 (S59 reads the status)")
            // S29: Event creates go through POST /api/v1/events/batch in queue order and chunks of batchSize: 60…
            #expect(Set(result.created.map(\.id)) == Set([first.id, last.id].compactMap { $0 }))
            #expect(result.errors.map(\.index) == [1, 2])
            #expect(result.errors[0].type == "conflict" && result.errors[0].existingId == first.id)
            #expect(result.errors[0].message.lowercased().contains("duplicate"))
            #expect(result.errors[1].type == "validation")
            let stored = try await client.getEvents(limit: 10, offset: 0)
            #expect(stored.map(\.id) == [last.id, first.id].compactMap { $0 })
        },
        check("a batch re-sent under its key replays; another body under the same key is 422") { client, type in
            let batchKey = key()
            let items = [event(type: type.id, at: instant(20))]
            let first = try await client.createEventsBatch(items, idempotencyKey: batchKey)
            var replay = try await client.createEventsBatch(items, idempotencyKey: batchKey)
            #expect(!first.replayed && replay.replayed, "R5: a replayed batch answer says so")
            replay.replayed = false
            #expect(replay == first)
            #expect(first.httpStatus == 201 && replay.httpStatus == 201, "nothing failed: 201, replayed as stored")
            let creates = try await client.getChanges(since: 0, limit: 100).changes.filter { $0.entityType == "event" }
            #expect(creates.count == 1)
            await expectFailure(422, "idempotency_mismatch") {
                _ = try await client.createEventsBatch(
                    [event(type: type.id, at: instant(21))], idempotencyKey: batchKey)
            }
        },
        check("event ids must be UUIDv7 no more than 60 s ahead of the server's clock") { client, type in
            let version4 = UUID().uuidString.lowercased()
            let future = UUIDv7.Generator().generate(at: Date().addingTimeInterval(600))
            let result = try await client.createEventsBatch(
                [
                    event(id: version4, type: type.id, at: instant(30)),
                    event(id: future, type: type.id, at: instant(31)),
                ],
                idempotencyKey: key())
            #expect(result.errors.map(\.type) == ["invalid_uuid", "future_timestamp"])
            await expectFailure(400, "invalid_uuid") {
                _ = try await client.createEventWithIdempotency(
                    event(id: version4, type: type.id, at: instant(32)), idempotencyKey: key())
            }
        },
        check("event pages: newest first, limit and offset; getAllEvents pages to the end with the type embedded") {
            client, type in
            let requests = (0..<5).map { event(type: type.id, at: instant(40 + $0)) }
            _ = try await client.createEventsBatch(requests, idempotencyKey: key())
            let newestFirst = requests.reversed().compactMap(\.id)
            #expect(try await client.getEvents(limit: 2, offset: 0).map(\.id) == Array(newestFirst[0..<2]))
            #expect(try await client.getEvents(limit: 2, offset: 2).map(\.id) == Array(newestFirst[2..<4]))
            let all = try await client.getAllEvents(batchSize: 2)
            #expect(all.map(\.id) == newestFirst)
            #expect(all.allSatisfy { $0.eventType?.id == type.id })
        },
        check("three-state PUT: null clears clearable fields and leaves the others; properties {} clears the map") {
            client, type in
            let created = try await client.createEventWithIdempotency(
                event(type: type.id, at: instant(50)) {
                    $0.notes = "note"
                    $0.externalId = "ext-1"
                    $0.locationLatitude = 52.5
                    $0.locationLongitude = 13.4
                    $0.sourceType = .imported
                    $0.properties = ["mood": PropertyValue(type: .text, value: "good")]
                }, idempotencyKey: key())
            var update = UpdateEventRequest(
                Event(
                    id: created.id, eventTypeId: type.id, timestamp: created.timestamp,
                    details: EventDetails(externalId: "ext-1")))
            update.sourceType = nil
            update.properties = [:]
            let updated = try await client.updateEventWithIdempotency(id: created.id, update, idempotencyKey: key())
            #expect(updated.notes == nil && updated.locationLatitude == nil && updated.locationLongitude == nil)
            #expect(updated.externalId == "ext-1" && updated.properties.isEmpty)
            #expect(updated.sourceType == .imported, "null leaves a non-clearable field unchanged")
            #expect(try await client.getEvents(limit: 1, offset: 0).first?.notes == nil)
        },
        check("HealthKit: a second create with the same sample id answers the stored event, no second row") {
            client, type in
            func sample(_ offset: Int) -> CreateEventRequest {
                event(type: type.id, at: instant(offset)) {
                    $0.sourceType = .healthkit
                    $0.healthKitSampleId = "HK-\(type.id)"
                    $0.healthKitCategory = "steps"
                }
            }
            let first = try await client.createEventsBatch([sample(60)], idempotencyKey: key())
            let second = try await client.createEventsBatch([sample(61)], idempotencyKey: key())
            #expect(second.failed == 0 && second.created.first?.id == first.created.first?.id)
            #expect(try await client.getEvents(limit: 10, offset: 0).count == 1)
        },
    ]
}
