import Foundation
import HTTPTypes
import Models

/// The fields an event create or PUT can carry (api-v1 §5.3.3), as read from a body or a stored row.
///
/// Equality is the "identical" test of §3.4: every field the create request can carry, timestamps as stored
/// milliseconds, properties as JSON values.
struct EventFields: Equatable {
    var eventTypeId: String?
    var timestamp: Int64?
    var notes: String?
    var isAllDay = false
    var endDate: Int64?
    var sourceType = EventSourceType.manual.rawValue
    var externalId: String?
    var originalTitle: String?
    var geofenceId: String?
    var locationLatitude: Double?
    var locationLongitude: Double?
    var locationName: String?
    var healthKitSampleId: String?
    var healthKitCategory: String?
    var properties: [String: JSONValue] = [:]

    init() {}

    init(_ event: APIEvent) {
        eventTypeId = event.eventTypeId
        timestamp = event.timestamp.millisecondsSince1970
        notes = event.notes
        isAllDay = event.isAllDay
        endDate = event.endDate?.millisecondsSince1970
        sourceType = event.sourceType.rawValue
        externalId = event.externalId
        originalTitle = event.originalTitle
        geofenceId = event.geofenceId
        locationLatitude = event.locationLatitude
        locationLongitude = event.locationLongitude
        locationName = event.locationName
        healthKitSampleId = event.healthKitSampleId
        healthKitCategory = event.healthKitCategory
        properties = event.properties.mapValues(\.json)
    }

    /// Reads a body. On create, `event_type_id` and `timestamp` are required, `end_date: ""` means absent and the
    /// coordinate pair rule applies; on a PUT the caller merges present keys into the stored row.
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
        if creating, body.members["end_date"] == .string("") {
            fields.endDate = nil
        } else {
            fields.endDate = body.timestamp("end_date").value
        }
        fields.externalId = body.string("external_id").value
        fields.originalTitle = body.string("original_title").value
        fields.geofenceId = body.uuid("geofence_id").value
        fields.locationLatitude = body.number("location_latitude", in: Geofences.latitudeRange).value
        fields.locationLongitude = body.number("location_longitude", in: Geofences.longitudeRange).value
        fields.locationName = body.string("location_name").value
        fields.healthKitSampleId = body.string("healthkit_sample_id").value
        fields.healthKitCategory = body.string("healthkit_category").value
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
    /// leaves the others; `properties` replaces the map when it is an object.
    func merging(_ changes: EventFields, body members: [String: JSONValue], original: Bool) -> EventFields {
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
        apply("end_date", clearable: true, \.endDate)
        apply("external_id", clearable: true, \.externalId)
        apply("original_title", clearable: true, \.originalTitle)
        apply("geofence_id", clearable: true, \.geofenceId)
        apply("location_latitude", clearable: !original, \.locationLatitude)
        apply("location_longitude", clearable: !original, \.locationLongitude)
        apply("location_name", clearable: true, \.locationName)
        apply("healthkit_sample_id", clearable: false, \.healthKitSampleId)
        apply("healthkit_category", clearable: false, \.healthKitCategory)
        if case .value = state("properties"), members["properties"]?.objectValue != nil {
            merged.properties = changes.properties
        }
        return merged
    }

    func event(id: String, user: String) -> APIEvent {
        APIEvent(
            id: id, userId: user, eventTypeId: eventTypeId ?? "", timestamp: (timestamp ?? 0).date, notes: notes,
            isAllDay: isAllDay, sourceType: EventSourceType(lenient: sourceType),
            details: EventDetails(
                endDate: endDate?.date, externalId: externalId, originalTitle: originalTitle, geofenceId: geofenceId,
                locationLatitude: locationLatitude, locationLongitude: locationLongitude, locationName: locationName,
                healthKitSampleId: healthKitSampleId, healthKitCategory: healthKitCategory),
            properties: properties.compactMapValues(PropertyValue.init(json:)))
    }
}
