import Foundation

/// A typed field that events of one type can carry (sync-engine §1.4). Its fields are `PropertyDefinitionFields`;
/// its event type is fixed at creation.
public struct PropertyDefinition: HoldsFields, Sendable, Hashable, Identifiable {
    /// A UUID (sync-engine §1.1), lowercased.
    public var id: String
    /// The event type whose events carry it; set at creation, never changed.
    public var eventTypeId: String
    /// Its key, label, kind, options, default and order.
    public var fields: PropertyDefinitionFields
    /// Now at local creation; the server's value once server data is applied.
    public var createdAt: Date
    /// When it was last changed; the server's value once server data is applied.
    public var updatedAt: Date
    /// The stored sync status (sync-engine §1.2).
    public var syncStatus: SyncStatus

    /// A definition with these fields.
    public init(
        id: String, eventTypeId: String, fields: PropertyDefinitionFields, createdAt: Date, updatedAt: Date,
        syncStatus: SyncStatus = .pending
    ) {
        self.id = id
        self.eventTypeId = eventTypeId
        self.fields = fields
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.syncStatus = syncStatus
    }

    /// A definition with the fields most callers set; the others take their defaults.
    public init(
        id: String, eventTypeId: String, key: String, label: String, propertyType: PropertyType = .text,
        options: [String] = [], defaultValue: JSONValue? = nil, displayOrder: Int = 0, createdAt: Date,
        updatedAt: Date, syncStatus: SyncStatus = .pending
    ) {
        self.init(
            id: id, eventTypeId: eventTypeId,
            fields: PropertyDefinitionFields(
                key: key, label: label, propertyType: propertyType, options: options, defaultValue: defaultValue,
                displayOrder: displayOrder),
            createdAt: createdAt, updatedAt: updatedAt, syncStatus: syncStatus)
    }

    /// The row an upsert inserts before server data fills it in (sync-engine §2.4): `synced`, keyed "placeholder".
    public static func placeholder(id: String, eventTypeId: String, at now: Date) -> PropertyDefinition {
        let now = now.roundedToMilliseconds
        return PropertyDefinition(
            id: id, eventTypeId: eventTypeId, key: "placeholder", label: "Placeholder", createdAt: now, updatedAt: now,
            syncStatus: .synced)
    }
}

extension PropertyDefinition: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        let createdAt = try container.decodeTimestamp(forKey: "created_at")
        self.init(
            id: try container.decodeId(forKey: "id"),
            eventTypeId: try container.decodeId(forKey: "event_type_id"),
            fields: try PropertyDefinitionFields(from: container, reading: .userFile),
            createdAt: createdAt,
            updatedAt: try container.decodeTimestampStrictlyIfPresent(forKey: "updated_at") ?? createdAt,
            syncStatus: try container.decode(SyncStatus.self, forKey: "sync_status", default: .pending))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encode(id, forKey: "id")
        try container.encode(eventTypeId, forKey: "event_type_id")
        try fields.encode(to: &container)
        try container.encodeTimestamp(createdAt, forKey: "created_at")
        try container.encodeTimestamp(updatedAt, forKey: "updated_at")
        try container.encode(syncStatus, forKey: "sync_status")
    }
}
