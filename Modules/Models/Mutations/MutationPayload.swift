import Foundation

/// The exact JSON request bodies stored in the outbox (sync-engine §1.6) and the fold overlay of §1.7.
///
/// Payloads are encoded with `JSONCoding` (sorted keys), so decoding one into its typed request and encoding
/// it again reproduces the stored bytes.
public enum MutationPayload {
    public static func create(_ eventType: EventType) throws -> Data {
        try JSONCoding.encode(CreateEventTypeRequest(eventType))
    }

    public static func update(_ eventType: EventType) throws -> Data {
        try JSONCoding.encode(UpdateEventTypeRequest(eventType))
    }

    public static func create(_ event: Event) throws -> Data {
        try JSONCoding.encode(CreateEventRequest(event))
    }

    public static func update(_ event: Event) throws -> Data {
        try JSONCoding.encode(UpdateEventRequest(event))
    }

    public static func create(_ geofence: Geofence) throws -> Data {
        try JSONCoding.encode(CreateGeofenceRequest(geofence))
    }

    public static func update(_ geofence: Geofence) throws -> Data {
        try JSONCoding.encode(UpdateGeofenceRequest(geofence))
    }

    public static func create(_ definition: PropertyDefinition) throws -> Data {
        try JSONCoding.encode(CreatePropertyDefinitionRequest(definition))
    }

    public static func update(_ definition: PropertyDefinition) throws -> Data {
        try JSONCoding.encode(UpdatePropertyDefinitionRequest(definition))
    }

    /// Folds an update body into an unsent create body (sync-engine §1.7).
    ///
    /// Starting from the create's object, each key of the update sets its value, except that `null` removes the
    /// key (`properties: null` becomes `{}`); keys the create shape does not have (`ios_region_identifier`) are
    /// dropped; the create's `id` and, for property definitions, its `event_type_id` are kept. The result is
    /// re-encoded through the typed create request, so it is byte-identical to what the client will send.
    public static func fold(
        create createPayload: Data, update updatePayload: Data, of entityType: MutationEntityType
    )
        throws -> Data
    {
        guard case .object(var created) = try JSONCoding.decode(JSONValue.self, from: createPayload),
            case .object(let update) = try JSONCoding.decode(JSONValue.self, from: updatePayload)
        else { throw PayloadError.notAnObject }
        let allowed = createKeys(of: entityType)
        for (key, value) in update where allowed.contains(key) {
            if key == "id" || (key == "event_type_id" && entityType == .propertyDefinition) { continue }
            if value == .null {
                created[key] = key == "properties" ? .object([:]) : nil
            } else {
                created[key] = value
            }
        }
        return try canonicalCreate(JSONCoding.encode(JSONValue.object(created)), of: entityType)
    }

    /// Decodes a create body into its typed request and encodes it again.
    public static func canonicalCreate(_ payload: Data, of entityType: MutationEntityType) throws -> Data {
        switch entityType {
        case .eventType: try JSONCoding.encode(JSONCoding.decode(CreateEventTypeRequest.self, from: payload))
        case .geofence: try JSONCoding.encode(JSONCoding.decode(CreateGeofenceRequest.self, from: payload))
        case .propertyDefinition:
            try JSONCoding.encode(JSONCoding.decode(CreatePropertyDefinitionRequest.self, from: payload))
        case .event: try JSONCoding.encode(JSONCoding.decode(CreateEventRequest.self, from: payload))
        }
    }

    /// Decodes an update body into its typed request and encodes it again.
    public static func canonicalUpdate(_ payload: Data, of entityType: MutationEntityType) throws -> Data {
        switch entityType {
        case .eventType: try JSONCoding.encode(JSONCoding.decode(UpdateEventTypeRequest.self, from: payload))
        case .geofence: try JSONCoding.encode(JSONCoding.decode(UpdateGeofenceRequest.self, from: payload))
        case .propertyDefinition:
            try JSONCoding.encode(JSONCoding.decode(UpdatePropertyDefinitionRequest.self, from: payload))
        case .event: try JSONCoding.encode(JSONCoding.decode(UpdateEventRequest.self, from: payload))
        }
    }

    /// The string a payload holds under `key`, lowercased (an id), or nil.
    public static func id(in payload: Data?, key: String) -> String? {
        guard let payload, let body = try? JSONText.parse(Array(payload)) else { return nil }
        return body[key]?.stringValue?.lowercased()
    }

    /// The payload without the references in `keys`: a create leaves them out, an update sends `null`, which clears
    /// them on the server (sync-engine R8: a payload never names a removed parent). Nil when the payload named none.
    public static func clearing(
        _ keys: [String], in payload: Data, of entityType: MutationEntityType, operation: MutationOperation
    ) throws -> Data? {
        guard case .object(var body) = try JSONCoding.decode(JSONValue.self, from: payload) else {
            throw PayloadError.notAnObject
        }
        var changed = false
        for key in keys where body[key] != nil && body[key] != .null {
            body[key] = operation == .create ? nil : .null
            changed = true
        }
        guard changed else { return nil }
        let text = try JSONCoding.encode(JSONValue.object(body))
        return operation == .create
            ? try canonicalCreate(text, of: entityType) : try canonicalUpdate(text, of: entityType)
    }

    /// The keys of each entity type's create request.
    public static func createKeys(of entityType: MutationEntityType) -> Set<String> {
        switch entityType {
        case .eventType: ["id", "name", "color", "icon"]
        case .geofence:
            [
                "id", "name", "latitude", "longitude", "radius", "event_type_entry_id", "event_type_exit_id",
                "is_active", "notify_on_entry", "notify_on_exit",
            ]
        case .propertyDefinition:
            ["id", "event_type_id", "key", "label", "property_type", "options", "default_value", "display_order"]
        case .event: Set(CreateEventRequest.keys)
        }
    }

    public enum PayloadError: Error, Equatable {
        case notAnObject
    }
}
