import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Revision 3: features, single reads, keyset pages (api-v1 §2.1, §5.3.1; sync-engine R0, R4, R11)

extension NetworkClientContract {
    static let revision3Checks: [Check] = [
        check("R0 every answer reports the server's features: after, at least") { subject in
            let client = subject.client
            _ = try await client.getLatestCursor()
            let features = try #require(client.serverFeatures, "an answer was received")
            #expect(features.has(ServerFeatures.after))
        },
        check("N7 fetchEntity: the entity whole on 200, nil on 404 and for another user's id") { subject in
            let client = subject.client
            let type = try await eventType(client)
            let created = try await client.createEventsBatch(
                [event(type: type.id, at: instant(30)) { $0.notes = "read me" }], idempotencyKey: key())
            let stored = try #require(created.created.first)
            guard case .event(let event)? = try await client.fetchEntity(.event, id: stored.id.uppercased()) else {
                Issue.record("expected the event")
                return
            }
            #expect(event.id == stored.id && event.notes == "read me" && event.eventTypeId == type.id)
            guard case .eventType(let fetchedType)? = try await client.fetchEntity(.eventType, id: type.id) else {
                Issue.record("expected the event type")
                return
            }
            #expect(fetchedType.name == type.name)
            #expect(try await client.fetchEntity(.geofence, id: newId()) == nil)
            #expect(try await subject.otherUser.fetchEntity(.event, id: stored.id) == nil, "404 for another user")
        },
        check("N8 keyset pages: newest first, chained by token, each event once, a delete shifts nothing") {
            client, type in
            let other = try await eventType(client)
            // Pairs share a timestamp (in two types): the id breaks the tie.
            let created = try await client.createEventsBatch(
                (0..<7).map { event(type: $0 % 2 == 0 ? type.id : other.id, at: instant(100 + $0 / 2)) },
                idempotencyKey: key())
            #expect(created.created.count == 7)
            let expected = created.created.sorted {
                ($0.timestamp, $0.id.lowercased()) > ($1.timestamp, $1.id.lowercased())
            }.map { $0.id.lowercased() }

            let first = try await client.getEventsPage(limit: 3, after: nil)
            #expect(first.events.map { $0.id.lowercased() } == Array(expected.prefix(3)))
            let token = try #require(first.nextAfter, "a full page with more after it carries a token")
            #expect(first.events.allSatisfy { $0.eventType?.id == $0.eventTypeId }, "event_type is embedded")
            // A delete of a listed event does not shift the next page.
            try await client.deleteEvent(id: expected[0])
            let second = try await client.getEventsPage(limit: 3, after: token)
            #expect(second.events.map { $0.id.lowercased() } == Array(expected[3..<6]))
            let secondToken = try #require(second.nextAfter, "more after the second page")
            let third = try await client.getEventsPage(limit: 3, after: secondToken)
            #expect(third.events.map { $0.id.lowercased() } == [expected[6]] && third.nextAfter == nil)
            let exact = try await client.getEventsPage(limit: 6, after: nil)
            #expect(exact.events.count == 6 && exact.nextAfter == nil, "the last page carries no token")
        },
        check(
            "R1 api-v1 §3.5a a PUT changes only the keys it holds; properties_patch sets and removes keys, the rest stay"
        ) {
            client, type in
            let created = try await client.createEventsBatch(
                [
                    event(type: type.id, at: instant(40)) {
                        $0.notes = "kept"
                        $0.details.locationName = "Park"
                        $0.properties = [
                            "km": PropertyValue(type: .number, value: 5),
                            "mood": PropertyValue(type: .text, value: "ok"),
                            "shoes": PropertyValue(type: .text, value: "old"),
                        ]
                    }
                ], idempotencyKey: key())
            let id = try #require(created.created.first?.id)
            let cursor = try await client.getLatestCursor()
            let patch = UpdateEventRequest(
                isAllDay: true,
                propertiesPatch: [
                    "mood": nil, "km": PropertyValue(type: .number, value: 6),
                    "new": .init(type: .boolean, value: true),
                ],
                cleared: ["location_name"])
            let updated = try await client.updateEventWithIdempotency(id: id, patch, idempotencyKey: key())
            #expect(updated.notes == "kept" && updated.isAllDay && updated.locationName == nil, "absent keys stay")
            #expect(
                updated.properties == [
                    "km": PropertyValue(type: .number, value: 6), "shoes": PropertyValue(type: .text, value: "old"),
                    "new": PropertyValue(type: .boolean, value: true),
                ], "one key set, one removed, one added, one untouched")
            let rows = try await changesAfter(cursor, client)
            #expect(
                rows.count == 1
                    && rows.first?.data?["properties"]?.objectValue?.keys.sorted() == ["km", "new", "shoes"],
                "api-v1 §3.5a the feed row carries the whole resulting map")
            let noop = try await client.updateEventWithIdempotency(
                id: id, UpdateEventRequest(propertiesPatch: ["mood": nil]), idempotencyKey: key())
            #expect(noop.properties == updated.properties)
            #expect(try await changesAfter(cursor, client).count == 1, "removing an absent key changes nothing")
        },
        check("N10 N11 R10 the digest adds up what the server holds at its latest cursor, by type and by bucket") {
            subject in
            let client = subject.client
            let type = try await eventType(client)
            let created = try await client.createEventsBatch(
                [
                    event(type: type.id, at: instant(60)) {
                        $0.notes = "digest"
                        $0.properties = ["n": PropertyValue(type: .number, value: 2.5)]
                    },
                    event(type: type.id, at: instant(61)),
                ], idempotencyKey: key())
            _ = try await client.createGeofenceWithIdempotency(
                CreateGeofenceRequest(id: newId(), name: "Gym", latitude: 1.5, longitude: -2, radius: 120),
                idempotencyKey: key())
            _ = try await client.createPropertyDefinitionWithIdempotency(
                CreatePropertyDefinitionRequest(
                    id: newId(), eventTypeId: type.id, key: "n", label: "N", propertyType: .number, displayOrder: 1),
                idempotencyKey: key())
            let digest = try await client.getDigest()
            #expect(digest.algorithm == EntityDigest.algorithm && digest.count == 5)
            #expect(digest.cursor == (try await client.getLatestCursor()), "the cursor the rows were read at")

            // The client's own computation over what the REST reads return is the server's digest.
            var entities: [APIEntity] = try await client.getEventTypes().map { .eventType($0) }
            entities += try await client.getAllEvents(batchSize: 100).map { .event($0) }
            entities += try await client.getGeofences(activeOnly: false).map { .geofence($0) }
            entities += try await client.getPropertyDefinitions(eventTypeId: type.id).map { .propertyDefinition($0) }
            #expect(try InMemoryTrendyServer.digest(of: entities, cursor: digest.cursor) == digest)

            let id = try #require(created.created.first?.id)
            let bucket = try await client.getDigestBucket(EntityDigest.bucket(of: id))
            #expect(bucket.cursor == digest.cursor && bucket.bucket == EntityDigest.bucket(of: id))
            #expect(bucket.items.contains { $0.id == id && $0.entityType == "event" })
            #expect(bucket.items.map(\.id) == bucket.items.map(\.id).sorted(), "sorted by id")
            let sum = bucket.items.compactMap { DigestSum(hex: $0.hash) }.reduce(DigestSum(), +)
            #expect(sum.hexString == digest.buckets[bucket.bucket], "the bucket's items add up to its hash")

            var update = UpdateEventRequest(notes: "changed")
            update.cleared = []
            _ = try await client.updateEventWithIdempotency(id: id, update, idempotencyKey: key())
            let after = try await client.getDigest()
            #expect(after.cursor > digest.cursor && after.hash != digest.hash && after.count == digest.count)
            #expect(after.types["event"]?.hash != digest.types["event"]?.hash)
            #expect(after.types["geofence"] == digest.types["geofence"], "other types unchanged")
            #expect(try await subject.otherUser.getDigest().count == 0, "another user's digest holds none of it")
            await expectFailure(400, "bad_request") { _ = try await client.getDigestBucket("A2") }
        },
        check("R10 api-v1 §14 test vectors: the four vector entities, created, list with the vectors' hashes") {
            subject in
            let client = subject.client
            _ = try await client.createEventTypeWithIdempotency(
                DigestTestVectors.eventTypeRequest, idempotencyKey: key())
            _ = try await client.createEventWithIdempotency(DigestTestVectors.eventRequest, idempotencyKey: key())
            _ = try await client.createGeofenceWithIdempotency(DigestTestVectors.geofenceRequest, idempotencyKey: key())
            _ = try await client.createPropertyDefinitionWithIdempotency(
                DigestTestVectors.propertyDefinitionRequest, idempotencyKey: key())
            let digest = try await client.getDigest()
            var total = DigestSum()
            for vector in DigestTestVectors.all {
                let listed = try await client.getDigestBucket(EntityDigest.bucket(of: vector.id))
                let item = listed.items.first { $0.id == vector.id }
                #expect(
                    item?.hash == vector.sha256 && item?.entityType == vector.entityType.rawValue,
                    "api-v1 §14: \(vector.entityType.rawValue) hashes to its test vector")
                #expect(digest.types[vector.entityType.rawValue]?.hash == vector.sha256)
                total += DigestSum(hex: vector.sha256) ?? DigestSum()
            }
            #expect(digest.count == 4 && digest.hash == total.hexString, "the digest is the sum of the four")
        },
        check("N8 a malformed page token is 400 bad_request") { subject in
            await expectFailure(400, "bad_request") {
                _ = try await subject.client.getEventsPage(limit: 10, after: "not-a-token")
            }
        },
    ]
}
