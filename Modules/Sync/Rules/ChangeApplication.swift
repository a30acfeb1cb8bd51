import Foundation
import Models

/// Applying the `data` of one change entry to a local row (sync-engine §4.10): only present keys change
/// anything; explicit `null` clears only the clearable fields; a key with the wrong JSON type is ignored.
enum ChangeApplication {
    /// Rows the original backend emits partially (api-v1 §6.3): never applied.
    static func isPartial(_ data: [String: JSONValue], type: MutationEntityType) -> Bool {
        if data["user_id"]?.stringValue?.isEmpty != false { return true }
        if data["event_type_id"]?.stringValue == "" { return true }
        if type == .event, let text = data["timestamp"]?.stringValue, RFC3339.date(from: text)?.isZeroInstant == true {
            return true
        }
        return false
    }

    /// True when the data can create a new row: events need a timestamp and a type, definitions a type.
    static func canCreate(_ data: [String: JSONValue], type: MutationEntityType) -> Bool {
        switch type {
        case .event:
            data["timestamp"]?.stringValue.flatMap(RFC3339.date(from:)) != nil
                && data["event_type_id"]?.stringValue?.isEmpty == false
        case .propertyDefinition: data["event_type_id"]?.stringValue?.isEmpty == false
        case .eventType, .geofence: true
        }
    }

    static func apply(_ data: [String: JSONValue], to event: inout Event) {
        let reader = Reader(data)
        reader.set(&event.eventTypeId, "event_type_id", id: true)
        reader.set(&event.timestamp, "timestamp")
        reader.set(&event.isAllDay, "is_all_day")
        if let source = data["source_type"]?.stringValue { event.sourceType = EventSourceType(lenient: source) }
        reader.clearable(&event.notes, "notes")
        for field in EventDetails.fields {
            guard let member = data[field.key] else { continue }
            if field.kind.isCoordinate { continue }  // set or cleared as a pair, below
            if member == .null {
                if field.clearable { event.details[field] = nil }
            } else if let value = field.value(json: member) {
                event.details[field] = value
            }
        }
        switch (data["location_latitude"], data["location_longitude"]) {
        case (.number(let latitude)?, .number(let longitude)?):
            (event.locationLatitude, event.locationLongitude) = (latitude, longitude)
        case (.null?, .null?):
            (event.locationLatitude, event.locationLongitude) = (nil, nil)
        default:
            break
        }
        if let properties = data["properties"], let map = PropertyValue.map(from: properties) {
            event.properties = map
        }
        // A queued patch rebased over server data (R3): single keys, `null` removing one.
        if case .object(let entries)? = data[MutationPayload.propertiesPatchKey] {
            for (key, entry) in entries {
                if entry == .null {
                    event.properties[key] = nil
                } else if let value = PropertyValue.map(from: .object([key: entry]))?[key] {
                    event.properties[key] = value
                }
            }
        }
    }

    static func apply(_ data: [String: JSONValue], to eventType: inout EventType) {
        apply(data, to: &eventType.fields)
        Reader(data).set(&eventType.createdAt, "created_at")
    }

    static func apply(_ data: [String: JSONValue], to geofence: inout Geofence) {
        apply(data, to: &geofence.fields)
        Reader(data).set(&geofence.createdAt, "created_at")
    }

    static func apply(_ data: [String: JSONValue], to definition: inout PropertyDefinition) {
        let reader = Reader(data)
        reader.set(&definition.eventTypeId, "event_type_id", id: true)
        apply(data, to: &definition.fields)
        reader.set(&definition.createdAt, "created_at")
        reader.set(&definition.updatedAt, "updated_at")
    }

    /// Each field the data names: `null` clears a clearable field, a value of the field's kind sets it.
    static func apply<Fields: EntityFields>(_ data: [String: JSONValue], to fields: inout Fields) {
        for field in Fields.fields {
            guard let member = data[field.key] else { continue }
            if member == .null {
                if field.clearable { fields[field] = nil }
            } else if let value = field.value(json: member) {
                fields[field] = value
            }
        }
    }

    /// Typed reads of present keys.
    private struct Reader {
        let data: [String: JSONValue]

        init(_ data: [String: JSONValue]) { self.data = data }

        func set(_ field: inout String, _ key: String, id: Bool = false) {
            if let value = data[key]?.stringValue { field = id ? value.lowercased() : value }
        }

        func set(_ field: inout Bool, _ key: String) {
            if let value = data[key]?.boolValue { field = value }
        }

        func set(_ field: inout Date, _ key: String) {
            if let text = data[key]?.stringValue, let date = RFC3339.date(from: text) { field = date }
        }

        /// `null` clears; a value sets; a wrong type or absence leaves the field.
        func clearable(_ field: inout String?, _ key: String, id: Bool = false) {
            switch data[key] {
            case .null?: field = nil
            case .string(let value)?: field = id ? value.lowercased() : value
            default: break
            }
        }
    }
}
