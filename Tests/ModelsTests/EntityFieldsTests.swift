import Foundation
import Models
import TestSupport
import Testing

/// The field tables of event types, geofences and property definitions are the one definition of their fields:
/// these checks fail when a stored property is added without its entry, or when a type that holds the fields drops
/// one on its way to JSON and back.
@Suite("Entity field tables")
struct EntityFieldsTests {
    static func everyField<Fields: EntityFields>(_ type: Fields.Type) -> Fields { Build.everyField(type) }

    static func differingProperties<Value>(_ one: Value, _ other: Value) -> Int {
        zip(Mirror(reflecting: one).children, Mirror(reflecting: other).children)
            .filter { String(describing: $0.value) != String(describing: $1.value) }.count
    }

    static func checkTable<Fields: EntityFields>(_ type: Fields.Type) {
        #expect(Mirror(reflecting: Fields()).children.count == Fields.fields.count, "\(Fields.self)")
        #expect(Set(Fields.keys).count == Fields.keys.count, "\(Fields.self): each key once")
        for (number, field) in Fields.fields.enumerated() {
            var fields = Fields()
            let value = Build.sample(of: field, number: number)
            fields[field] = value
            #expect(fields[field] == value, "\(field.key)")
            #expect(differingProperties(fields, Fields()) == 1, "\(field.key) sets exactly one stored property")
            fields[field] = nil
            #expect(fields == Fields(), "\(field.key) clears to its default")
        }
        #expect(differingProperties(everyField(Fields.self), Fields()) == Fields.fields.count)
    }

    @Test("each table has one entry per stored property, each key once, and each entry reads and writes its own")
    func tablesCoverEveryStoredProperty() {
        Self.checkTable(EventTypeFields.self)
        Self.checkTable(GeofenceFields.self)
        Self.checkTable(PropertyDefinitionFields.self)
    }

    static func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try JSONCoding.decode(Value.self, from: try JSONCoding.encode(value))
    }

    @Test("every field survives the JSON of the entity, the server's object and the create and update bodies")
    func everyFieldSurvivesJSON() throws {
        let now = Date(millisecondsSince1970: 1_793_523_600_000)
        let typeFields = Self.everyField(EventTypeFields.self)
        let type = EventType(id: UUIDv7.generate(at: now), fields: typeFields, createdAt: now)
        #expect(try Self.roundTrip(type) == type)
        let apiType = APIEventType(id: type.id, userId: "u", fields: typeFields, createdAt: now, updatedAt: now)
        #expect(try Self.roundTrip(apiType) == apiType)
        #expect(try Self.roundTrip(CreateEventTypeRequest(type)).fields == typeFields)
        #expect(try Self.roundTrip(UpdateEventTypeRequest(type)).applied(to: EventTypeFields()) == typeFields)

        let fenceFields = Self.everyField(GeofenceFields.self)
        let fence = Geofence(id: UUIDv7.generate(at: now), fields: fenceFields, createdAt: now)
        #expect(try Self.roundTrip(fence) == fence)
        let apiFence = APIGeofence(id: fence.id, userId: "u", fields: fenceFields, createdAt: now, updatedAt: now)
        #expect(try Self.roundTrip(apiFence) == apiFence)
        #expect(try Self.roundTrip(CreateGeofenceRequest(fence)).fields == fenceFields.forCreate)
        #expect(fenceFields.forCreate.iosRegionIdentifier == nil, "a create does not carry the region identifier")
        #expect(try Self.roundTrip(UpdateGeofenceRequest(fence)).applied(to: GeofenceFields()) == fenceFields)

        let definitionFields = Self.everyField(PropertyDefinitionFields.self)
        let definition = PropertyDefinition(
            id: UUIDv7.generate(at: now), eventTypeId: type.id, fields: definitionFields, createdAt: now,
            updatedAt: now)
        #expect(try Self.roundTrip(definition) == definition)
        let apiDefinition = APIPropertyDefinition(
            id: definition.id, userId: "u", eventTypeId: type.id, fields: definitionFields, createdAt: now,
            updatedAt: now)
        #expect(try Self.roundTrip(apiDefinition) == apiDefinition)
        #expect(try Self.roundTrip(CreatePropertyDefinitionRequest(definition)).fields == definitionFields)
        #expect(
            try Self.roundTrip(UpdatePropertyDefinitionRequest(definition)).applied(to: PropertyDefinitionFields())
                == definitionFields)
    }

    @Test("a value of another kind changes nothing; references are lower-case; an unknown choice reads as the default")
    func valuesOfTheirKind() throws {
        var fields = GeofenceFields(name: "Home")
        let name = try #require(GeofenceFields.field("name"))
        fields[name] = .number(3)
        #expect(fields.name == "Home")
        let entry = try #require(GeofenceFields.field("event_type_entry_id"))
        fields[entry] = .text("0192F1C4-7A00-7000-8000-0000000000AA")
        #expect(fields.eventTypeEntryId == "0192f1c4-7a00-7000-8000-0000000000aa")
        var definition = PropertyDefinitionFields(propertyType: .select)
        let kind = try #require(PropertyDefinitionFields.field("property_type"))
        definition[kind] = .text("hologram")
        #expect(definition.propertyType == .text)
        let order = try #require(PropertyDefinitionFields.field("display_order"))
        #expect(order.value(json: .number(1.5)) == nil, "an integer field takes no fraction")
    }

    @Test("a patch sets, reads and clears by field; only clearable fields clear")
    func patches() throws {
        var patch = UpdateGeofenceRequest { $0.radius = 200 }
        patch.eventTypeExitId = "0192F1C4-7A00-7000-8000-0000000000BB"
        #expect(patch.radius == 200 && patch.name == nil)
        patch.cleared = ["event_type_entry_id", "name"]
        let stored = GeofenceFields(name: "Home", eventTypeEntryId: "0192f1c4-7a00-7000-8000-0000000000aa")
        let patched = patch.applied(to: stored)
        #expect(patched.name == "Home", "name is not clearable")
        #expect(patched.eventTypeEntryId == nil && patched.radius == 200)
        #expect(patched.eventTypeExitId == "0192f1c4-7a00-7000-8000-0000000000bb")
        patch.radius = nil
        #expect(patch.values["radius"] == nil, "setting nil unsets, it does not clear")

        let body = #"{"name":null,"event_type_entry_id":null,"radius":120,"unknown":1}"#
        let decoded = try JSONCoding.decode(UpdateGeofenceRequest.self, from: Data(body.utf8))
        #expect(decoded.cleared == ["event_type_entry_id"] && decoded.values == ["radius": .number(120)])
        let encoded = try JSONCoding.decode(JSONValue.self, from: try JSONCoding.encode(decoded))
        #expect(encoded == .object(["event_type_entry_id": .null, "radius": 120]))
    }

    @Test(
        "a user's file must hold the required fields; a request must hold what a create requires; server data nothing")
    func readingStrictness() throws {
        let id = "0192f1c4-7a00-7000-8000-0000000000aa"
        let created = "2026-11-26T10:00:00Z"
        let withoutColor = #"{"id":"\#(id)","name":"Tea","created_at":"\#(created)"}"#
        let type = try JSONCoding.decode(EventType.self, from: Data(withoutColor.utf8))
        #expect(type.color == EventType.defaultColor, "a file may leave a defaulted field out")
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode(CreateEventTypeRequest.self, from: Data(#"{"id":"\#(id)","name":"Tea"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode(EventType.self, from: Data(#"{"id":"\#(id)","created_at":"\#(created)"}"#.utf8))
        }
        let server = try JSONCoding.decode(APIGeofence.self, from: Data(#"{"id":"\#(id)"}"#.utf8))
        #expect(server.name == "" && server.radius == 100 && server.isActive)
        let badReference =
            #"{"id":"\#(id)","name":"H","latitude":1,"longitude":2,"event_type_entry_id":"x","created_at":"\#(created)"}"#
        #expect(throws: DecodingError.self) { try JSONCoding.decode(Geofence.self, from: Data(badReference.utf8)) }
    }
}
