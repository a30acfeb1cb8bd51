import Foundation
import HTTPTypes
import Models

/// The fields an event create or PUT can carry (api-v1 §5.3.3), as read from a body or a stored row.
///
/// Equality is the "identical" test of api-v1 §3.4: every field the create request can carry, timestamps as stored
/// milliseconds, properties as JSON values. The optional fields are `details`, read and merged through
/// `EventDetails.fields`.
@dynamicMemberLookup
struct EventFields: Equatable {
    var eventTypeId: String?
    var timestamp: Int64?
    var notes: String?
    var isAllDay = false
    var sourceType = EventSourceType.manual.rawValue
    /// Times in whole milliseconds, as read from a body or a row.
    var details = EventDetails()
    var properties: [String: JSONValue] = [:]

    init() {}

    init(_ event: APIEvent) {
        eventTypeId = event.eventTypeId
        timestamp = event.timestamp.millisecondsSince1970
        notes = event.notes
        isAllDay = event.isAllDay
        sourceType = event.sourceType.rawValue
        details = event.details
        properties = event.properties.mapValues(\.json)
    }

    subscript<Value>(dynamicMember path: WritableKeyPath<EventDetails, Value>) -> Value {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }

    /// Reads a body. On create, `event_type_id` and `timestamp` are required, an optional time given as `""` (the
    /// original app's `end_date`) means absent and the coordinate pair rule applies; on a PUT the caller merges
    /// present keys into the stored row.
    static func read(_ body: inout BodyReader, creating: Bool) -> EventFields {
        var fields = EventFields()
        if creating {
            if case .value(let id) = body.uuid("event_type_id") {
                fields.eventTypeId = id
            } else if !body.errors.contains(where: { $0.field == "event_type_id" }) {
                body.fail("event_type_id", "required", "event_type_id is required")
            }
            if case .value(let time) = body.timestamp("timestamp") {
                fields.timestamp = time
            } else if !body.errors.contains(where: { $0.field == "timestamp" }) {
                body.fail("timestamp", "required", "timestamp is required")
            }
        } else {
            fields.eventTypeId = body.uuid("event_type_id").value
            fields.timestamp = body.timestamp("timestamp").value
        }
        fields.isAllDay = body.bool("is_all_day").value ?? false
        if case .value(let source) = body.string("source_type"), !source.isEmpty {
            if Events.sourceTypes.contains(source) {
                fields.sourceType = source
            } else {
                body.fail(
                    "source_type", "invalid_value",
                    "source_type must be one of \(Events.sourceTypes.joined(separator: ", "))")
            }
        }
        fields.notes = body.string("notes").value
        for field in EventDetails.fields {
            switch field.kind {
            case .text: fields.details[field] = body.string(field.key).value.map { .text($0) }
            case .id: fields.details[field] = body.uuid(field.key).value.map { .text($0) }
            case .time:
                if creating, body.members[field.key] == .string("") { continue }
                fields.details[field] = body.timestamp(field.key).value.map { .time($0.date) }
            case .coordinate(let range):
                fields.details[field] = body.number(field.key, in: range).value.map { .number($0) }
            }
        }
        fields.properties = body.properties().value ?? [:]
        if creating, (fields.locationLatitude == nil) != (fields.locationLongitude == nil),
            !body.errors.contains(where: { $0.field.hasPrefix("location_") })
        {
            body.fail(
                "location_latitude", "invalid_value", "location_latitude and location_longitude go together")
        }
        return fields
    }

    /// This stored row with a PUT body's present keys applied (api-v1 §3.5): `null` clears clearable fields and
    /// leaves the others; `properties` replaces the map when it is an object. A `null` coordinate clears by
    /// `Dialect.nullClearsEventCoordinates`.
    /// `propertiesPatch` then sets or (`null`) removes single keys of the map (api-v1 §3.5a).
    func merging(
        _ changes: EventFields, body members: [String: JSONValue], dialect: Dialect,
        propertiesPatch: [String: JSONValue] = [:]
    ) -> EventFields {
        var merged = self
        func state(_ key: String) -> Field<Void> {
            guard let value = members[key] else { return .absent }
            return value == .null ? .null : .value(())
        }
        func apply<Value>(_ key: String, clearable: Bool, _ path: WritableKeyPath<EventFields, Value?>) {
            switch state(key) {
            case .absent: break
            case .null: if clearable { merged[keyPath: path] = nil }
            case .value: if let value = changes[keyPath: path] { merged[keyPath: path] = value }
            }
        }
        apply("event_type_id", clearable: false, \.eventTypeId)
        apply("timestamp", clearable: false, \.timestamp)
        if case .value = state("is_all_day") { merged.isAllDay = changes.isAllDay }
        if case .value = state("source_type"), members["source_type"] != .string("") {
            merged.sourceType = changes.sourceType
        }
        apply("notes", clearable: true, \.notes)
        for field in EventDetails.fields {
            switch state(field.key) {
            case .absent: break
            case .null:
                if field.clearable && (dialect.nullClearsEventCoordinates || !field.kind.isCoordinate) {
                    merged.details[field] = nil
                }
            case .value: if let value = changes.details[field] { merged.details[field] = value }
            }
        }
        if case .value = state("properties"), members["properties"]?.objectValue != nil {
            merged.properties = changes.properties
        }
        for (key, value) in propertiesPatch { merged.properties[key] = value.nonNull }
        return merged
    }

    func event(id: String, user: String) -> APIEvent {
        APIEvent(
            id: id, userId: user, eventTypeId: eventTypeId ?? "", timestamp: (timestamp ?? 0).date, notes: notes,
            isAllDay: isAllDay, sourceType: EventSourceType(lenient: sourceType), details: details,
            properties: properties.compactMapValues(PropertyValue.init(json:)))
    }
}
