import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Geofences and property definitions

extension NetworkClientContract {
    static func fence(_ name: String, entry: String? = nil, active: Bool = true) -> CreateGeofenceRequest {
        CreateGeofenceRequest(
            id: newId(), name: name, latitude: 52.52, longitude: 13.405, radius: 150, eventTypeEntryId: entry,
            isActive: active)
    }

    static let geofenceAndDefinitionChecks: [Check] = [
        check("geofences: newest first, active filter, PUT clears the entry type, delete clears events' geofence_id") {
            client, type in
            let office = try await client.createGeofenceWithIdempotency(
                fence("Office", entry: type.id), idempotencyKey: key())
            let gym = try await client.createGeofenceWithIdempotency(fence("Gym", active: false), idempotencyKey: key())
            #expect(try await client.getGeofences(activeOnly: false).map(\.id) == [gym.id, office.id])
            #expect(try await client.getGeofences(activeOnly: true).map(\.id) == [office.id])
            var update = UpdateGeofenceRequest(
                Geofence(
                    id: office.id, name: "Office", latitude: 52.52, longitude: 13.405, radius: 150, createdAt: Date()))
            update.isActive = nil
            let cleared = try await client.updateGeofenceWithIdempotency(id: office.id, update, idempotencyKey: key())
            #expect(cleared.eventTypeEntryId == nil && cleared.isActive, "null clears the entry id, keeps is_active")
            #expect(cleared.iosRegionIdentifier == office.id)
            let visit = try await client.createEventWithIdempotency(
                event(type: type.id, at: instant(70)) { $0.geofenceId = office.id }, idempotencyKey: key())
            #expect(visit.geofenceId == office.id)
            try await client.deleteGeofence(id: office.id)
            #expect(try await client.getEvents(limit: 10, offset: 0).first?.geofenceId == nil)
            await expectFailure(400, "validation") {
                var tiny = fence("Tiny")
                tiny.radius = 10
                _ = try await client.createGeofenceWithIdempotency(tiny, idempotencyKey: key())
            }
        },
        check(
            "property definitions: display order, select needs options, duplicate key, PUT clears options and default"
        ) { subject in
            let client = subject.client
            let type = try await eventType(client)
            func definition(
                _ key: String, order: Int, kind: PropertyType = .number, options: [String] = []
            )
                -> CreatePropertyDefinitionRequest
            {
                CreatePropertyDefinitionRequest(
                    id: newId(), eventTypeId: type.id, key: key, label: key.capitalized, propertyType: kind,
                    options: options, defaultValue: options.first.map(JSONValue.string), displayOrder: order)
            }
            let second = try await client.createPropertyDefinitionWithIdempotency(
                definition("cups", order: 2), idempotencyKey: key())
            let first = try await client.createPropertyDefinitionWithIdempotency(
                definition("strength", order: 1), idempotencyKey: key())
            #expect(try await client.getPropertyDefinitions(eventTypeId: type.id).map(\.id) == [first.id, second.id])
            await expectFailure(400, "validation") {
                _ = try await client.createPropertyDefinitionWithIdempotency(
                    definition("mood", order: 3, kind: .select), idempotencyKey: key())
            }
            let duplicate = await expectFailure(409, "conflict") {
                _ = try await client.createPropertyDefinitionWithIdempotency(
                    definition("cups", order: 4), idempotencyKey: key())
            }
            #expect(duplicate?.existingId == second.id)
            let select = try await client.createPropertyDefinitionWithIdempotency(
                definition("mood", order: 3, kind: .select, options: ["good", "bad"]), idempotencyKey: key())
            #expect(select.options == ["good", "bad"] && select.defaultValue == "good")
            let cleared = try await client.updatePropertyDefinitionWithIdempotency(
                id: select.id,
                UpdatePropertyDefinitionRequest {
                    ($0.key, $0.label, $0.propertyType, $0.displayOrder) = ("mood", "Mood", .text, 5)
                    $0.cleared = ["options", "default_value"]
                },
                idempotencyKey: key())
            #expect(cleared.options.isEmpty && cleared.defaultValue == nil && cleared.displayOrder == 5)
            try await client.deletePropertyDefinition(id: first.id)
            #expect(try await client.getPropertyDefinitions(eventTypeId: type.id).map(\.id) == [second.id, select.id])
        },
    ]
}

// MARK: - Change feed

extension NetworkClientContract {
    static let feedChecks: [Check] = [
        check("S67 change feed: since is exclusive, pages by limit with has_more; an empty page keeps the cursor") {
            subject in
            let client = subject.client
            for name in ["A", "B", "C", "D"] { _ = try await eventType(client, name: name) }
            let firstPage = try await client.getChanges(since: 0, limit: 2)
            #expect(firstPage.changes.count == 2 && firstPage.hasMore)
            #expect(firstPage.nextCursor == firstPage.changes.last?.id)
            let secondPage = try await client.getChanges(since: firstPage.nextCursor, limit: 2)
            #expect(secondPage.changes.count == 2 && !secondPage.hasMore, "exactly `limit` rows left: no more")
            #expect(secondPage.changes.first.map { $0.id > firstPage.nextCursor } == true)
            let empty = try await client.getChanges(since: secondPage.nextCursor, limit: 2)
            // S67: The pull requests since = cursor, limit = changeFeedPageSize, and continues while has_more, each…
            #expect(empty.changes.isEmpty && !empty.hasMore && empty.nextCursor == secondPage.nextCursor)
            #expect(try await client.getLatestCursor() == secondPage.nextCursor)
            let names = (firstPage.changes + secondPage.changes).compactMap { $0.data?["name"]?.stringValue }
            #expect(names == ["A", "B", "C", "D"])
        },
        check(
            "api-v1 §6.5 a position names its change by its time: latest-cursor sends it; another time, or a cursor above "
                + "every change, is 410 on the feed and the stream"
        ) { subject in
            let client = subject.client
            for name in ["First", "Second"] { _ = try await eventType(client, name: name) }
            let rows = try await client.getChanges(since: 0, limit: 100).changes
            let first = try #require(rows.first)
            #expect(first.createdAt != nil)
            #expect(try await client.getLatestPosition() == rows.last?.position, "the last change, with its time")
            let page = try await client.getChanges(since: first.position, limit: 100)
            #expect(page.changes.map(\.id) == rows.dropFirst().map(\.id), "the time the server sent passes")
            var written = first.position
            written.createdAt = first.createdAt?.addingTimeInterval(-1)
            await expectFailure(410, "cursor_expired") { _ = try await client.getChanges(since: written, limit: 100) }
            await expectFailure(410, "cursor_expired") {
                for try await _ in client.changeStream(from: written) { break }
            }
            let ahead = FeedPosition(cursor: (rows.last?.id ?? 0) + 1_000_000)
            await expectFailure(410, "cursor_expired") { _ = try await client.getChanges(since: ahead, limit: 100) }
        },
        check("change data carries explicit nulls for clearable fields; a tombstone carries none") { client, type in
            let created = try await client.createEventWithIdempotency(
                event(type: type.id, at: instant(80)), idempotencyKey: key())
            let cursor = try await client.getLatestCursor()
            try await client.deleteEvent(id: created.id)
            let rows = try await client.getChanges(since: 0, limit: 100).changes
            let create = try #require(rows.first { $0.entityType == "event" && $0.operation == "create" })
            #expect(create.data?["notes"] == .null && create.data?["location_latitude"] == .null)
            #expect(
                create.data?["properties"] == .object([:]) && create.data?["user_id"]?.stringValue == created.userId)
            #expect(create.entityId == created.id && create.userId == created.userId)
            let tombstones = try await changesAfter(cursor, client)
            #expect(tombstones.count == 1 && tombstones[0].operation == "delete" && tombstones[0].data == nil)
            #expect(tombstones[0].deletedAt != nil && tombstones[0].entityId == created.id)
        },
        check("deleting an event type logs its cascade, children first, then the type") { client, type in
            let fence = try await client.createGeofenceWithIdempotency(
                NetworkClientContract.fence("Cafe", entry: type.id), idempotencyKey: key())
            let item = try await client.createEventWithIdempotency(
                event(type: type.id, at: instant(90)), idempotencyKey: key())
            let definition = try await client.createPropertyDefinitionWithIdempotency(
                CreatePropertyDefinitionRequest(
                    id: newId(), eventTypeId: type.id, key: "size", label: "Size", propertyType: .text),
                idempotencyKey: key())
            let cursor = try await client.getLatestCursor()
            try await client.deleteEventType(id: type.id)
            let rows = try await changesAfter(cursor, client)
            #expect(
                rows.map { "\($0.entityType):\($0.operation)" } == [
                    "geofence:update", "event:delete", "property_definition:delete", "event_type:delete",
                ])
            #expect(rows.map(\.entityId) == [fence.id, item.id, definition.id, type.id])
            #expect(rows[0].data?["event_type_entry_id"] == .null)
            #expect(try await client.getEvents(limit: 10, offset: 0).isEmpty)
            #expect(try await client.getGeofences(activeOnly: false).first?.eventTypeEntryId == nil)
        },
    ]
}
