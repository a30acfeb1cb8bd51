import Foundation
import Models

/// The sync digest's test vectors (api-v1 §14; docs/digest-test-vectors.md): one entity of each type, the create
/// request that stores it, its canonical object and that object's SHA-256. The first two are the spec's; the
/// geofence and the definition were written out by hand and hashed with Python's `hashlib`, apart from this code.
/// `DigestTests` reproduces them from server objects and device rows, `NetworkClientContract` from what every
/// server implementation lists.
public enum DigestTestVectors {
    /// One entity's vector.
    public struct Vector: Sendable {
        /// The entity's kind.
        public let entityType: MutationEntityType
        /// The entity's id.
        public let id: String
        /// Its canonical object, byte for byte (api-v1 §14).
        public let canonical: String
        /// The lowercase hex SHA-256 of `canonical`.
        public let sha256: String
    }

    /// The event type's id, which the event and the definition name.
    public static let typeId = "0192f1c4-7a00-7000-8000-000000000001"

    /// The spec's event type.
    public static let eventType = Vector(
        entityType: .eventType, id: typeId,
        canonical:
            ##"{"color":"#007AFF","entity_type":"event_type","icon":"cup.and.saucer","id":"0192f1c4-7a00-7000-8000-000000000001","name":"Coffee"}"##,
        sha256: "e1503fa565e4a0dac90550e9eb1e9466ebbdde28c4321078617a4296100d891e")

    /// The spec's event: a location, a number and a null property.
    public static let event = Vector(
        entityType: .event, id: "0192f1c4-7a00-7000-8000-0000000000a2",
        canonical:
            #"{"entity_type":"event","event_type_id":"0192f1c4-7a00-7000-8000-000000000001","id":"0192f1c4-7a00-7000-8000-0000000000a2","is_all_day":false,"location_latitude":51.5,"location_longitude":-0.12,"notes":"","properties":{"cups":{"type":"number","value":2},"mood":{"type":"text","value":null}},"source_type":"manual","timestamp":"2026-11-01T09:00:00.000Z"}"#,
        sha256: "271f2621072e1c33c8ff8b98c8ad42e03b2c236fa77029403b5a6de225e2f79f")

    /// A geofence with a non-ASCII name and an entry type.
    public static let geofence = Vector(
        entityType: .geofence, id: "0192f1c4-7a00-7000-8000-0000000000b3",
        canonical:
            #"{"entity_type":"geofence","event_type_entry_id":"0192f1c4-7a00-7000-8000-000000000001","id":"0192f1c4-7a00-7000-8000-0000000000b3","is_active":true,"latitude":52.520008,"longitude":13.404954,"name":"Büro","notify_on_entry":true,"notify_on_exit":false,"radius":150}"#,
        sha256: "2ad2e60de08e69d6092c1afbcd4af188e2231f81d74d61110b45fb5b36b0f6e6")

    /// A select definition with options and a default.
    public static let propertyDefinition = Vector(
        entityType: .propertyDefinition, id: "0192f1c4-7a00-7000-8000-0000000000c4",
        canonical:
            #"{"default_value":"small","display_order":1,"entity_type":"property_definition","event_type_id":"0192f1c4-7a00-7000-8000-000000000001","id":"0192f1c4-7a00-7000-8000-0000000000c4","key":"size","label":"Size","options":["small","large"],"property_type":"select"}"#,
        sha256: "46caa374f835108173c720cfe98b4201293cc1f22dfd174c6db1deba82dabb49")

    /// The four vectors, the type first.
    public static let all = [eventType, event, geofence, propertyDefinition]

    /// The create request that stores `eventType`; the others below store the other three (create the type first).
    public static let eventTypeRequest = CreateEventTypeRequest(
        id: typeId, name: "Coffee", color: "#007AFF", icon: "cup.and.saucer")

    /// The create request that stores `event`.
    public static var eventRequest: CreateEventRequest {
        var request = CreateEventRequest(
            id: event.id, eventTypeId: typeId, timestamp: Date(millisecondsSince1970: 1_793_523_600_000))
        request.notes = ""
        request.locationLatitude = 51.5
        request.locationLongitude = -0.12
        request.properties = [
            "cups": PropertyValue(type: .number, value: 2.0), "mood": PropertyValue(type: .text, value: .null),
        ]
        return request
    }

    /// The create request that stores `geofence`.
    public static let geofenceRequest = CreateGeofenceRequest(
        id: geofence.id,
        fields: GeofenceFields(
            name: "Büro", latitude: 52.520008, longitude: 13.404954, radius: 150, eventTypeEntryId: typeId,
            isActive: true, notifyOnEntry: true, notifyOnExit: false))

    /// The create request that stores `propertyDefinition`.
    public static let propertyDefinitionRequest = CreatePropertyDefinitionRequest(
        id: propertyDefinition.id, eventTypeId: typeId, key: "size", label: "Size", propertyType: .select,
        options: ["small", "large"], defaultValue: "small", displayOrder: 1)
}
