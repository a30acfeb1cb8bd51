import Foundation
import Models
import Testing

/// What the client sends, byte for byte (sync-engine §1.6, api-v1 §3.5): sorted keys, no whitespace, creates omit
/// nil optionals, updates write every key with `null` for nil, times with exactly three fractional digits.
@Suite("Request bodies")
struct RequestEncodingTests {
    static let typeId = "0190f5c0-3f00-7a11-8b22-000000000001"
    static let eventId = "0190f5c0-3f00-7a11-8b22-000000000064"
    static let fenceId = "0190f5c0-3f00-7a11-8b22-0000000000c8"
    static let definitionId = "0190f5c0-3f00-7a11-8b22-00000000012c"
    static let instant = Date(millisecondsSince1970: 1_768_614_292_123)

    static let eventType = EventType(
        id: typeId, name: "Coffee", color: "#8B4513", icon: "cup.and.saucer", createdAt: instant)
    static let event = Event(
        id: eventId, eventTypeId: typeId, timestamp: instant, notes: "double shot",
        details: EventDetails(locationLatitude: 52.52, locationLongitude: 13.405),
        properties: ["strength": PropertyValue(type: .number, value: 3)])
    static let geofence = Geofence(
        id: fenceId,
        fields: GeofenceFields(
            name: "Office", latitude: 52.52, longitude: 13.405, radius: 150, eventTypeEntryId: typeId,
            notifyOnEntry: true),
        createdAt: instant)
    static let selectDefinition = PropertyDefinition(
        id: definitionId, eventTypeId: typeId, key: "mood", label: "Mood", propertyType: .select,
        options: ["good", "bad"], defaultValue: "good", createdAt: instant, updatedAt: instant)

    func expectBytes(_ data: Data, equal fixture: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = String(decoding: try FixtureFiles.data(fixture), as: UTF8.self)
            .trimmingCharacters(in: .newlines)
        #expect(String(decoding: data, as: UTF8.self) == expected, sourceLocation: sourceLocation)
    }

    @Test("S8 create bodies omit nil optionals and always carry id; events always carry the three defaults")
    func createBodies() throws {
        // S8: each body is compared byte for byte with a fixture that omits nil optionals and carries `id`.
        try expectBytes(try MutationPayload.create(Self.eventType), equal: "request.create-event-type.json")
        try expectBytes(try MutationPayload.create(Self.event), equal: "request.create-event.json")
        let minimal = Event(id: Self.eventId, eventTypeId: Self.typeId, timestamp: Self.instant)
        try expectBytes(try MutationPayload.create(minimal), equal: "request.create-event.minimal.json")
        try expectBytes(try MutationPayload.create(Self.geofence), equal: "request.create-geofence.json")
        try expectBytes(
            try MutationPayload.create(Self.selectDefinition), equal: "request.create-property-definition.json")
        let batch = BatchCreateEventsRequest(events: [CreateEventRequest(minimal)])
        try expectBytes(try JSONCoding.encode(batch), equal: "request.batch.json")
    }

    @Test("full-state update bodies (what a patch is taken from) carry every field, null for an unset clearable one")
    func updateBodies() throws {
        // Each body is compared byte for byte with a fixture; the geofence sends its region id.
        try expectBytes(try MutationPayload.update(Self.eventType), equal: "request.update-event-type.json")
        try expectBytes(try MutationPayload.update(Self.event), equal: "request.update-event.json")
        try expectBytes(try MutationPayload.update(Self.geofence), equal: "request.update-geofence.json")
        try expectBytes(
            try MutationPayload.update(Self.selectDefinition), equal: "request.update-property-definition.json")
        let cleared = PropertyDefinition(
            id: Self.definitionId, eventTypeId: Self.typeId, key: "strength", label: "Strength", propertyType: .number,
            displayOrder: 3, createdAt: Self.instant, updatedAt: Self.instant)
        try expectBytes(try MutationPayload.update(cleared), equal: "request.update-property-definition.cleared.json")
    }

    @Test(
        "a stored body decoded into its typed request and encoded again gives back the same bytes",
        arguments: [
            "request.create-event-type.json", "request.update-event-type.json", "request.create-event.json",
            "request.create-event.minimal.json", "request.update-event.json", "request.create-geofence.json",
            "request.update-geofence.json", "request.create-property-definition.json",
            "request.update-property-definition.json", "request.update-property-definition.cleared.json",
            "request.batch.json",
        ])
    func reencodingIsStable(name: String) throws {
        let data = Data(
            String(decoding: try FixtureFiles.data(name), as: UTF8.self).trimmingCharacters(in: .newlines).utf8)
        let reencoded: Data
        switch name {
        case "request.create-event-type.json": reencoded = try roundTrip(CreateEventTypeRequest.self, data)
        case "request.update-event-type.json": reencoded = try roundTrip(UpdateEventTypeRequest.self, data)
        case "request.create-event.json", "request.create-event.minimal.json":
            reencoded = try roundTrip(CreateEventRequest.self, data)
        case "request.update-event.json": reencoded = try roundTrip(UpdateEventRequest.self, data)
        case "request.create-geofence.json": reencoded = try roundTrip(CreateGeofenceRequest.self, data)
        case "request.update-geofence.json": reencoded = try roundTrip(UpdateGeofenceRequest.self, data)
        case "request.create-property-definition.json":
            reencoded = try roundTrip(CreatePropertyDefinitionRequest.self, data)
        case "request.batch.json": reencoded = try roundTrip(BatchCreateEventsRequest.self, data)
        default: reencoded = try roundTrip(UpdatePropertyDefinitionRequest.self, data)
        }
        #expect(reencoded == data)
    }

    private func roundTrip<Request: Codable>(_ type: Request.Type, _ data: Data) throws -> Data {
        try JSONCoding.encode(try JSONCoding.decode(type, from: data))
    }

    @Test("responses omit null optionals and empty properties and options")
    func responsesOmitNulls() throws {
        let event = APIEvent(id: Self.eventId, userId: "u", eventTypeId: Self.typeId, timestamp: Self.instant)
        let json = try JSONCoding.decode(JSONValue.self, from: try JSONCoding.encode(event))
        #expect(
            json.objectValue.map { Set($0.keys) } == [
                "id", "user_id", "event_type_id", "timestamp", "is_all_day", "source_type",
            ])
        let definition = APIPropertyDefinition(
            id: Self.definitionId, userId: "u", eventTypeId: Self.typeId,
            fields: PropertyDefinitionFields(key: "k", label: "K", propertyType: .text))
        let definitionJSON = try JSONCoding.decode(JSONValue.self, from: try JSONCoding.encode(definition))
        #expect(definitionJSON["options"] == nil && definitionJSON["default_value"] == nil)
        #expect(definitionJSON["display_order"] == 0)
    }

    @Test("a change entry always writes data, null for a delete")
    func changeEntryData() throws {
        let entry = ChangeEntry(
            id: 9, entityType: "event", operation: "delete", entityId: Self.eventId, userId: "u", data: nil)
        let json = try JSONCoding.decode(JSONValue.self, from: try JSONCoding.encode(entry))
        #expect(json["data"] == .null)
    }
}
