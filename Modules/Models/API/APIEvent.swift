import Foundation

/// An event as the server returns it (api-v1 §4.2).
///
/// Decoding is lenient because the original backend answers HealthKit matches with partial objects (empty
/// `user_id`, `event_type_id` and `source_type`, zero-time timestamps): such an object decodes, and
/// `isComplete` tells whether it may be applied as entity state.
///
/// A bootstrap holds every event of an account in memory until its snapshot is complete, so the layout is lean
/// (APIEvent+Storage.swift): the optional fields (`details`, which most events leave empty) and the embedded type
/// live behind references. The public surface is plain stored-property semantics; the optional fields read and
/// write as members of the event.
@dynamicMemberLookup
public struct APIEvent: Sendable, Hashable, Identifiable {
    public var id: String
    /// The account that owns it; empty in the original backend's partial HealthKit answers.
    public var userId: String
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
    /// The property values, by key.
    public var properties: [String: PropertyValue]
    /// When the server created it; nil when it did not say.
    public var createdAt: Date?
    /// When the server last wrote it (the version's acknowledgment, sync-engine R15); nil when it did not say.
    public var updatedAt: Date?
    /// Nil when every optional field is nil.
    var storedDetails: Box<EventDetails>?
    /// Shared by the events of one listing (`Interner`).
    var embeddedType: Box<APIEventType>?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    /// The optional fields.
    public var details: EventDetails {
        get { storedDetails?.value ?? EventDetails() }
        set { storedDetails = Box(newValue, unlessEmpty: true) }
    }

    /// An optional field of `details`, as a member of the event.
    public subscript<Value>(dynamicMember path: WritableKeyPath<EventDetails, Value>) -> Value {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }

    /// Embedded only on `GET /events` and `GET /events/{id}`; never required.
    public var eventType: APIEventType? {
        get { embeddedType?.value }
        set { embeddedType = newValue.map(Box.init) }
    }

    /// An event as a server answers it.
    public init(
        id: String,
        userId: String,
        eventTypeId: String,
        timestamp: Date,
        notes: String? = nil,
        isAllDay: Bool = false,
        sourceType: EventSourceType = .manual,
        details: EventDetails = EventDetails(),
        properties: [String: PropertyValue] = [:],
        createdAt: Date? = nil,
        updatedAt: Date? = nil,
        eventType: APIEventType? = nil
    ) {
        self.id = id
        self.userId = userId
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.sourceType = sourceType
        self.properties = properties
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.storedDetails = Box(details, unlessEmpty: true)
        self.embeddedType = eventType.map(Box.init)
    }

    /// True when the object carries real state: non-empty `user_id` and `event_type_id`, a non-zero timestamp.
    public var isComplete: Bool {
        !userId.isEmpty && !eventTypeId.isEmpty && !timestamp.isZeroInstant
    }
}

extension APIEvent: ReplayableAnswer {}

extension APIEvent: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decode(String.self, forKey: "id"),
            userId: try container.decode(String.self, forKey: "user_id", default: ""),
            eventTypeId: try container.decode(String.self, forKey: "event_type_id", default: ""),
            timestamp: container.decodeTimestampIfPresent(forKey: "timestamp") ?? .zeroInstant,
            notes: try container.decodeIfPresent(String.self, forKey: "notes"),
            isAllDay: try container.decode(Bool.self, forKey: "is_all_day", default: false),
            sourceType: try container.decode(EventSourceType.self, forKey: "source_type", default: .manual),
            details: try EventDetails(from: container, strict: false),
            properties: (try? container.decodeIfPresent(JSONValue.self, forKey: "properties"))
                .flatMap { $0 }.flatMap(PropertyValue.map(from:)) ?? [:],
            createdAt: container.decodeTimestampIfPresent(forKey: "created_at"),
            updatedAt: container.decodeTimestampIfPresent(forKey: "updated_at"),
            eventType: try? container.decodeIfPresent(APIEventType.self, forKey: "event_type")
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encode(id, forKey: "id")
        try container.encode(userId, forKey: "user_id")
        try container.encodeEventMembers(
            eventTypeId: eventTypeId, timestamp: timestamp, notes: notes, isAllDay: isAllDay, sourceType: sourceType,
            details: details)
        if !properties.isEmpty { try container.encode(properties, forKey: "properties") }
        try container.encodeTimestampIfPresent(createdAt, forKey: "created_at")
        try container.encodeTimestampIfPresent(updatedAt, forKey: "updated_at")
        try container.encodeIfPresent(eventType, forKey: "event_type")
    }
}
