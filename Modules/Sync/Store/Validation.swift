import Foundation
import Models
import Protocols

/// The server's rules (api-v1 §4–§5) checked before a local write, so that an edit the server would refuse fails
/// now, with a message, instead of later as a dead letter.
enum Validation {
    static func check(_ type: EventType, among types: [EventType]) throws {
        try text(of: CreateEventTypeRequest(type))
        try nonEmpty(type.name, "name")
        try nonEmpty(type.color, "color")
        try nonEmpty(type.icon, "icon")
        if types.contains(where: { $0.name.isExactly(type.name) && $0.id != type.id }) {
            throw EventStoreError.duplicate("an event type named \"\(type.name)\" already exists")
        }
    }

    static func check(_ event: Event, _ store: any DataStoreProtocol) throws {
        // Numbers first: a NaN or an infinity cannot even be encoded for the text check.
        if (event.locationLatitude == nil) != (event.locationLongitude == nil) {
            throw EventStoreError.invalid(field: "location", reason: "needs both a latitude and a longitude")
        }
        try range(event.locationLatitude, -90...90, "latitude")
        try range(event.locationLongitude, -180...180, "longitude")
        try instant(event.timestamp, "timestamp")
        try instant(event.endDate, "end_date")
        try text(of: CreateEventRequest(event))
        guard try store.findEventType(id: event.eventTypeId) != nil else {
            throw EventStoreError.notFound(.eventType, id: event.eventTypeId)
        }
        if let geofence = event.geofenceId, try store.findGeofence(id: geofence) == nil {
            throw EventStoreError.notFound(.geofence, id: geofence)
        }
        if event.sourceType != .healthkit,
            try store.fetchEvents(
                matching: EventQuery(eventTypeId: event.eventTypeId, since: event.timestamp, until: event.timestamp)
            )
            .contains(where: { $0.id != event.id && $0.sourceType != .healthkit })
        {
            throw EventStoreError.duplicate(
                "an event of this type already exists at \(RFC3339.string(from: event.timestamp))")
        }
    }

    static func check(_ fence: Geofence, _ store: any DataStoreProtocol) throws {
        try range(fence.latitude, -90...90, "latitude")
        try range(fence.longitude, -180...180, "longitude")
        try range(fence.radius, 50...10_000, "radius")
        try text(of: CreateGeofenceRequest(fence))
        try nonEmpty(fence.name, "name")
        for reference in fence.eventTypeIds
        where try store.findEventType(id: reference) == nil {
            throw EventStoreError.notFound(.eventType, id: reference)
        }
        if try store.fetchAllGeofences().contains(where: { $0.name.isExactly(fence.name) && $0.id != fence.id }) {
            throw EventStoreError.duplicate("a geofence named \"\(fence.name)\" already exists")
        }
    }

    static func check(_ definition: PropertyDefinition, _ store: any DataStoreProtocol) throws {
        try text(of: CreatePropertyDefinitionRequest(definition))
        guard try store.findEventType(id: definition.eventTypeId) != nil else {
            throw EventStoreError.notFound(.eventType, id: definition.eventTypeId)
        }
        try nonEmpty(definition.key, "key")
        try nonEmpty(definition.label, "label")
        if definition.propertyType == .select && definition.options.isEmpty {
            throw EventStoreError.invalid(field: "options", reason: "are required for a select property")
        }
        if try store.fetchAllPropertyDefinitions().contains(where: {
            $0.eventTypeId == definition.eventTypeId && $0.key.isExactly(definition.key) && $0.id != definition.id
        }) {
            throw EventStoreError.duplicate("this event type already has a property \"\(definition.key)\"")
        }
    }

    /// The server's text rules (`TextLimit`) on the body the push will send, so they cannot drift apart.
    private static func text(of body: some Encodable) throws {
        guard let members = try JSONValueEncoder.encode(body).objectValue,
            let (field, problem) = TextLimit.problems(in: members).first
        else { return }
        throw EventStoreError.invalid(field: field, reason: problem.description)
    }

    private static func nonEmpty(_ value: String, _ field: String) throws {
        if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw EventStoreError.invalid(field: field, reason: "must not be empty")
        }
    }

    private static func range(_ value: Double?, _ range: ClosedRange<Double>, _ field: String) throws {
        guard let value else { return }
        guard value.isFinite, range.contains(value) else {
            throw EventStoreError.invalid(
                field: field,
                reason: "must be between \(plain(range.lowerBound)) and \(plain(range.upperBound))")
        }
    }

    /// A time the wire carries as a value (api-v1 §3.2): after `0001-01-01T00:00:00Z`, which means "no value", and
    /// within four-digit years. An event at that instant would be pushed as one without a time, and refused for good.
    private static func instant(_ value: Date?, _ field: String) throws {
        guard let value else { return }
        let milliseconds = value.millisecondsSince1970
        guard milliseconds > RFC3339.zeroInstantMilliseconds, milliseconds < RFC3339.year10000Milliseconds else {
            throw EventStoreError.invalid(
                field: field, reason: "must be after 0001-01-01T00:00:00Z and before the year 10000")
        }
    }

    /// `50` rather than `50.0`, and never locale separators: messages must read the same everywhere.
    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
