import Foundation

/// An entity as a device stores it — an id, its fields, when it was created, its sync status — with the JSON of a
/// user's file (`trendyctl --json`, export and import). `EventType` and `Geofence` are these; a property definition
/// also carries its event type and `updated_at`, and spells its JSON itself.
public protocol DeviceRecord: HoldsFields, Codable, Sendable, Hashable, Identifiable where ID == String {
    /// A lowercased UUID.
    var id: String { get set }
    /// When it was created: locally, or as the server says once server data is applied.
    var createdAt: Date { get set }
    /// The stored sync status (sync-engine §1.2).
    var syncStatus: SyncStatus { get set }
    /// A record of these values.
    init(id: String, fields: Fields, createdAt: Date, syncStatus: SyncStatus)
}

extension DeviceRecord {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decodeId(forKey: "id"),
            fields: try Fields(from: container, reading: .userFile),
            createdAt: try container.decodeTimestamp(forKey: "created_at"),
            syncStatus: try container.decode(SyncStatus.self, forKey: "sync_status", default: .pending))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encode(id, forKey: "id")
        try fields.encode(to: &container)
        try container.encodeTimestamp(createdAt, forKey: "created_at")
        try container.encode(syncStatus, forKey: "sync_status")
    }
}

/// A server object with a field table (api-v1 §4): its id, its owner, its fields and the server's times.
/// `APIEventType`, `APIGeofence` and `APIPropertyDefinition` are these; servers and the in-memory server create and
/// update them through one flow.
public protocol ServerObject: HoldsFields, Encodable, Sendable, Hashable {
    /// The entity's id, as the server spells it.
    var id: String { get }
    /// The account that owns it.
    var userId: String { get }
    /// When the server created it; nil when it did not say.
    var createdAt: Date? { get set }
    /// When the server last wrote it (the version's acknowledgment, sync-engine R15); nil when it did not say.
    var updatedAt: Date? { get set }
}

/// A server object with nothing beside its fields, read leniently: a member the server leaves out takes its
/// default. `APIEventType` and `APIGeofence` are these (a definition also carries its event type).
public protocol ServerRecord: ServerObject, Codable, Identifiable where ID == String {
    /// The entity's id, as the server spells it.
    var id: String { get set }
    /// The account that owns it.
    var userId: String { get set }
    /// An object of these values.
    init(id: String, userId: String, fields: Fields, createdAt: Date?, updatedAt: Date?)
}

extension ServerRecord {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decode(String.self, forKey: "id"),
            userId: try container.decode(String.self, forKey: "user_id", default: ""),
            fields: try Fields(from: container, reading: .serverData),
            createdAt: container.decodeTimestampIfPresent(forKey: "created_at"),
            updatedAt: container.decodeTimestampIfPresent(forKey: "updated_at"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encode(id, forKey: "id")
        try container.encode(userId, forKey: "user_id")
        try fields.encode(to: &container)
        try container.encodeTimestampIfPresent(createdAt, forKey: "created_at")
        try container.encodeTimestampIfPresent(updatedAt, forKey: "updated_at")
    }
}

/// The body of a create (api-v1 §5): the id the client chose and the fields a create carries.
/// `CreateEventTypeRequest` and `CreateGeofenceRequest` are these.
public protocol CreateBody: HoldsFields, Codable, Sendable, Hashable {
    /// The id the client chose; nil lets the server choose (the original backend's way).
    var id: String? { get set }
    /// A body of these values.
    init(id: String?, fields: Fields)
}

extension CreateBody {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: "id"),
            fields: try Fields(from: container, reading: .request))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeIfPresent(id, forKey: "id")
        try fields.encode(to: &container, creating: true)
    }
}
