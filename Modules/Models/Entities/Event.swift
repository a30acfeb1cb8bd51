import Foundation

/// A logged occurrence of an event type: the local row (sync-engine §1.4).
///
/// Codable with the API field names plus `sync_status`; unset optionals are omitted, times are RFC 3339 UTC
/// with milliseconds. That is the shape `trendyctl --json` prints, export writes and import reads — the one
/// definition of an event's fields outside the wire and the database. Decoding is strict (ids are UUIDs, times
/// parse, enums are known), as a file a user hands in deserves; server data goes through the API types instead.
/// The optional fields are `details` (EventDetails.swift), read and written as members of the event.
@dynamicMemberLookup
public struct Event: Sendable, Hashable, Identifiable {
    public var id: String
    /// The parent type. No foreign key: an event whose type is not stored locally is an allowed orphan.
    public var eventTypeId: String
    /// When it happened (its start, when `endDate` is set).
    public var timestamp: Date
    /// Free text the user wrote.
    public var notes: String?
    /// True for an event of a whole day, whose time of day means nothing.
    public var isAllDay: Bool
    /// Where the event came from: typed by hand, imported, a geofence or HealthKit.
    public var sourceType: EventSourceType
    /// The optional fields, defined once (`EventDetails`).
    public var details: EventDetails
    /// The values of the type's property definitions, by key.
    public var properties: [String: PropertyValue]
    /// The stored sync status (sync-engine §1.2).
    public var syncStatus: SyncStatus

    /// An event; what is not given is empty, manual and `pending`.
    public init(
        id: String,
        eventTypeId: String,
        timestamp: Date,
        notes: String? = nil,
        isAllDay: Bool = false,
        sourceType: EventSourceType = .manual,
        details: EventDetails = EventDetails(),
        properties: [String: PropertyValue] = [:],
        syncStatus: SyncStatus = .pending
    ) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.timestamp = timestamp
        self.notes = notes
        self.isAllDay = isAllDay
        self.sourceType = sourceType
        self.details = details
        self.properties = properties
        self.syncStatus = syncStatus
    }

    /// An optional field of `details`, as a member of the event (`event.locationName`).
    public subscript<Value>(dynamicMember path: WritableKeyPath<EventDetails, Value>) -> Value {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }

    /// The members of the `Codable` shape, in a fixed order, `sync_status` last: export's CSV columns follow it.
    public static let fieldNames =
        ["id", "event_type_id", "timestamp", "is_all_day", "notes", "source_type"] + EventDetails.keys
        + ["properties", "sync_status"]

    /// The row an upsert inserts before server fields are applied (sync-engine §2.4): `event_type_id = ""`, now,
    /// defaults.
    public static func placeholder(id: String, at now: Date) -> Event {
        Event(id: id, eventTypeId: "", timestamp: now.roundedToMilliseconds, syncStatus: .synced)
    }
}

extension Event: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decodeId(forKey: "id"),
            eventTypeId: try container.decodeId(forKey: "event_type_id"),
            timestamp: try container.decodeTimestamp(forKey: "timestamp"),
            notes: try container.decodeIfPresent(String.self, forKey: "notes"),
            isAllDay: try container.decode(Bool.self, forKey: "is_all_day", default: false),
            sourceType: try container.decodeKnownIfPresent(EventSourceType.self, forKey: "source_type") ?? .manual,
            details: try EventDetails(from: container, strict: true),
            properties: try container.decode([String: PropertyValue].self, forKey: "properties", default: [:]),
            syncStatus: try container.decode(SyncStatus.self, forKey: "sync_status", default: .pending)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encode(id, forKey: "id")
        try container.encodeEventMembers(
            eventTypeId: eventTypeId, timestamp: timestamp, notes: notes, isAllDay: isAllDay, sourceType: sourceType,
            details: details)
        if !properties.isEmpty { try container.encode(properties, forKey: "properties") }
        try container.encode(syncStatus, forKey: "sync_status")
    }
}

extension KeyedEncodingContainer where Key == FieldKey {
    /// The members that `Event`, `APIEvent` and `CreateEventRequest` write alike (the update writes nil as `null`).
    mutating func encodeEventMembers(
        eventTypeId: String, timestamp: Date, notes: String?, isAllDay: Bool, sourceType: EventSourceType,
        details: EventDetails
    ) throws {
        try encode(eventTypeId, forKey: "event_type_id")
        try encodeTimestamp(timestamp, forKey: "timestamp")
        try encodeIfPresent(notes, forKey: "notes")
        try encode(isAllDay, forKey: "is_all_day")
        try encode(sourceType, forKey: "source_type")
        try details.encode(to: &self)
    }
}
