import Foundation

/// Body of `POST /api/v1/events` and one item of a batch (api-v1 §5.3.3).
///
/// Nil optionals are omitted; `is_all_day`, `source_type` and `properties` are always written. The optional
/// fields are `details` (EventDetails.swift), read and written as members of the request.
@dynamicMemberLookup
public struct CreateEventRequest: Sendable, Hashable {
    public var id: String?
    public var eventTypeId: String
    public var timestamp: Date
    public var notes: String?
    public var isAllDay: Bool
    public var sourceType: EventSourceType
    public var details: EventDetails
    public var properties: [String: PropertyValue]

    public init(
        id: String?,
        eventTypeId: String,
        timestamp: Date,
        notes: String? = nil,
        isAllDay: Bool = false,
        sourceType: EventSourceType = .manual,
        details: EventDetails = EventDetails(),
        properties: [String: PropertyValue] = [:]
    ) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.sourceType = sourceType
        self.details = details
        self.properties = properties
    }

    /// The create body for a local event (sync-engine §1.6).
    public init(_ event: Event) {
        self.init(
            id: event.id, eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes,
            isAllDay: event.isAllDay, sourceType: event.sourceType, details: event.details,
            properties: event.properties)
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<EventDetails, Value>) -> Value {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }

    /// Every key a create body can carry.
    public static let keys =
        ["id", "event_type_id", "timestamp", "notes", "is_all_day", "source_type", "properties"] + EventDetails.keys
}

extension CreateEventRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: "id"),
            eventTypeId: try container.decode(String.self, forKey: "event_type_id"),
            timestamp: try container.decodeTimestamp(forKey: "timestamp"),
            notes: try container.decodeIfPresent(String.self, forKey: "notes"),
            isAllDay: try container.decode(Bool.self, forKey: "is_all_day", default: false),
            sourceType: try container.decode(EventSourceType.self, forKey: "source_type", default: .manual),
            details: try EventDetails(from: container, strict: false),
            properties: try container.decode([String: PropertyValue].self, forKey: "properties", default: [:])
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeIfPresent(id, forKey: "id")
        try container.encodeEventMembers(
            eventTypeId: eventTypeId, timestamp: timestamp, notes: notes, isAllDay: isAllDay, sourceType: sourceType,
            details: details)
        try container.encode(properties, forKey: "properties")
    }
}

/// Body of `PUT /api/v1/events/{id}`: the create keys minus `id`, every key written, nil as `null`.
///
/// On the server `null` clears the clearable fields (api-v1 §3.5) and leaves the others unchanged, so a body
/// built from the full local state makes the stored row equal the local row.
@dynamicMemberLookup
public struct UpdateEventRequest: Sendable, Hashable {
    public var eventTypeId: String?
    public var timestamp: Date?
    public var notes: String?
    public var isAllDay: Bool?
    public var sourceType: EventSourceType?
    /// Nil members are written as `null`, which clears a clearable field.
    public var details: EventDetails
    public var properties: [String: PropertyValue]?

    public init(
        eventTypeId: String? = nil,
        timestamp: Date? = nil,
        notes: String? = nil,
        isAllDay: Bool? = nil,
        sourceType: EventSourceType? = nil,
        details: EventDetails = EventDetails(),
        properties: [String: PropertyValue]? = nil
    ) {
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.sourceType = sourceType
        self.details = details
        self.properties = properties
    }

    /// The full-state update body for a local event (sync-engine §1.6).
    public init(_ event: Event) {
        self.init(
            eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes, isAllDay: event.isAllDay,
            sourceType: event.sourceType, details: event.details, properties: event.properties)
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<EventDetails, Value>) -> Value {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }
}

extension UpdateEventRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            eventTypeId: try container.decodeIfPresent(String.self, forKey: "event_type_id"),
            timestamp: container.decodeTimestampIfPresent(forKey: "timestamp"),
            notes: try container.decodeIfPresent(String.self, forKey: "notes"),
            isAllDay: try container.decodeIfPresent(Bool.self, forKey: "is_all_day"),
            sourceType: try container.decodeIfPresent(EventSourceType.self, forKey: "source_type"),
            details: try EventDetails(from: container, strict: false),
            properties: try container.decodeIfPresent([String: PropertyValue].self, forKey: "properties")
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeOrNull(eventTypeId, forKey: "event_type_id")
        try container.encodeTimestampOrNull(timestamp, forKey: "timestamp")
        try container.encodeOrNull(notes, forKey: "notes")
        try container.encodeOrNull(isAllDay, forKey: "is_all_day")
        try container.encodeOrNull(sourceType, forKey: "source_type")
        try details.encode(to: &container, nulls: true)
        try container.encodeOrNull(properties, forKey: "properties")
    }
}

/// Body of `POST /api/v1/events/batch`: 1–500 create items.
public struct BatchCreateEventsRequest: Sendable, Hashable, Codable {
    public var events: [CreateEventRequest]

    public init(events: [CreateEventRequest]) {
        self.events = events
    }
}
