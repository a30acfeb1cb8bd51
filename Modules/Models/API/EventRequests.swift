import Foundation

/// Body of `POST /api/v1/events` and one item of a batch (api-v1 §5.3.3).
///
/// Nil optionals are omitted; `is_all_day`, `source_type` and `properties` are always written. The optional
/// fields are `details` (EventDetails.swift), read and written as members of the request.
@dynamicMemberLookup
public struct CreateEventRequest: Sendable, Hashable {
    /// The id the client chose (a UUIDv7); nil lets the server choose.
    public var id: String?
    /// The event's type.
    public var eventTypeId: String
    /// When it happened.
    public var timestamp: Date
    /// Free text.
    public var notes: String?
    /// True for an event of a whole day.
    public var isAllDay: Bool
    /// Where it came from.
    public var sourceType: EventSourceType
    /// The optional fields, sent where set.
    public var details: EventDetails
    /// The property values, by key.
    public var properties: [String: PropertyValue]

    /// A body; what is not given is empty and manual.
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

    /// An optional field of `details`, as a member of the request.
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

/// Body of `PUT /api/v1/events/{id}`: a partial update (api-v1 §3.5) — a nil field is left out and stays as it is
/// on the server, except that the clearable fields named in `cleared` are sent as `null`. `properties` replaces the
/// whole map; `propertiesPatch` (api-v1 §3.5a) sets or, with nil, removes single keys.
@dynamicMemberLookup
public struct UpdateEventRequest: Sendable, Hashable {
    /// A new type; nil leaves it.
    public var eventTypeId: String?
    /// A new time; nil leaves it.
    public var timestamp: Date?
    /// New notes; nil leaves them unless `cleared` names `notes`.
    public var notes: String?
    /// A new all-day flag; nil leaves it.
    public var isAllDay: Bool?
    /// A new source; nil leaves it.
    public var sourceType: EventSourceType?
    /// Set members are sent; unset ones are left out unless `cleared` names them.
    public var details: EventDetails
    /// A whole new property map; nil leaves the map (or lets `propertiesPatch` change single keys).
    public var properties: [String: PropertyValue]?
    /// Property key → its new value, or nil to remove the key; the other keys of the stored map stay.
    public var propertiesPatch: [String: PropertyValue?]?
    /// Wire keys sent as `null`: among `clearable`.
    public var cleared: Set<String>

    /// The clearable fields of an event (api-v1 §3.5): `notes` and the clearable details.
    public static let clearable: Set<String> = Set(["notes"] + EventDetails.fields.filter(\.clearable).map(\.key))

    /// A patch of what is given.
    public init(
        eventTypeId: String? = nil,
        timestamp: Date? = nil,
        notes: String? = nil,
        isAllDay: Bool? = nil,
        sourceType: EventSourceType? = nil,
        details: EventDetails = EventDetails(),
        properties: [String: PropertyValue]? = nil,
        propertiesPatch: [String: PropertyValue?]? = nil,
        cleared: Set<String> = []
    ) {
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.sourceType = sourceType
        self.details = details
        self.properties = properties
        self.propertiesPatch = propertiesPatch
        self.cleared = cleared
    }

    /// Every field of a local event, unset clearable fields as `null`, the whole property map: the state a patch is
    /// taken from (sync-engine R1).
    public init(_ event: Event) {
        var cleared: Set<String> = event.notes == nil ? ["notes"] : []
        for field in EventDetails.fields where field.clearable && event.details[field] == nil {
            cleared.insert(field.key)
        }
        self.init(
            eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes, isAllDay: event.isAllDay,
            sourceType: event.sourceType, details: event.details, properties: event.properties, cleared: cleared)
    }

    /// An optional field of `details`, as a member of the request.
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
            properties: try container.decodeIfPresent([String: PropertyValue].self, forKey: "properties"),
            propertiesPatch: try container.decodeIfPresent([String: PropertyValue?].self, forKey: "properties_patch"),
            cleared: try container.nullKeys(Self.clearable)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeIfPresent(eventTypeId, forKey: "event_type_id")
        try container.encodeIfPresent(timestamp.map(RFC3339.string(from:)), forKey: "timestamp")
        try container.encode(notes, forKey: "notes", cleared: cleared)
        try container.encodeIfPresent(isAllDay, forKey: "is_all_day")
        try container.encodeIfPresent(sourceType, forKey: "source_type")
        try details.encode(to: &container, clearing: cleared)
        try container.encodeIfPresent(properties, forKey: "properties")
        try container.encodeIfPresent(propertiesPatch, forKey: "properties_patch")
    }
}

/// Body of `POST /api/v1/events/batch`: 1–500 create items.
public struct BatchCreateEventsRequest: Sendable, Hashable, Codable {
    /// The creates, answered in this order.
    public var events: [CreateEventRequest]

    /// A batch of `events`.
    public init(events: [CreateEventRequest]) {
        self.events = events
    }
}
