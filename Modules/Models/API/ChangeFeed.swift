import Foundation

/// Answer to `GET /api/v1/changes?since&limit` (api-v1 §5.6).
public struct ChangeFeedResponse: Sendable, Hashable {
    /// The rows after `since`, in id order.
    public var changes: [ChangeEntry]
    /// The id of the last returned row, or `since` when the page is empty. Opaque: never do arithmetic on it.
    public var nextCursor: Int64
    /// True when more rows follow: ask again from `nextCursor`.
    public var hasMore: Bool

    /// A page.
    public init(changes: [ChangeEntry], nextCursor: Int64, hasMore: Bool) {
        self.changes = changes
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }
}

extension ChangeFeedResponse: Codable {
    enum CodingKeys: String, CodingKey {
        case changes
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        changes = try container.decode([ChangeEntry].self, forKey: .changes, default: [])
        nextCursor = try container.decode(Int64.self, forKey: .nextCursor)
        hasMore = try container.decode(Bool.self, forKey: .hasMore, default: false)
    }
}

/// One row of the change feed (api-v1 §6.1).
///
/// `entityType` and `operation` stay raw strings so that unknown values decode and can be skipped;
/// `data` stays JSON because it is applied key by key (absent, `null` and value mean different things).
public struct ChangeEntry: Sendable, Hashable {
    /// The row's id: its place in the feed, and the cursor after it.
    public var id: Int64
    /// `event_type`, `event`, `geofence` or `property_definition`; any other value is skipped.
    public var entityType: String
    /// `create`, `update` or `delete`; any other value is skipped.
    public var operation: String
    /// The id of the entity written.
    public var entityId: String
    /// The account that owns it.
    public var userId: String
    /// The entity after the write for creates and updates; nil (`null` on the wire) for deletes.
    public var data: JSONValue?
    /// A delete's time.
    public var deletedAt: Date?
    /// When the server wrote the row (api-v1 §6.5); nil from a server that does not say.
    public var createdAt: Date?

    /// A row.
    public init(
        id: Int64, entityType: String, operation: String, entityId: String, userId: String, data: JSONValue?,
        deletedAt: Date? = nil, createdAt: Date? = nil
    ) {
        self.id = id
        self.entityType = entityType
        self.operation = operation
        self.entityId = entityId
        self.userId = userId
        self.data = data
        self.deletedAt = deletedAt
        self.createdAt = createdAt
    }

    /// `entityType` when this version knows it.
    public var knownEntityType: MutationEntityType? { MutationEntityType(rawValue: entityType) }
    /// `operation` when this version knows it.
    public var knownOperation: MutationOperation? { MutationOperation(rawValue: operation) }
}

extension ChangeEntry: Codable {
    enum CodingKeys: String, CodingKey {
        case id, operation, data
        case entityType = "entity_type"
        case entityId = "entity_id"
        case userId = "user_id"
        case deletedAt = "deleted_at"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        entityType = try container.decode(String.self, forKey: .entityType, default: "")
        operation = try container.decode(String.self, forKey: .operation, default: "")
        entityId = try container.decode(String.self, forKey: .entityId, default: "")
        userId = try container.decode(String.self, forKey: .userId, default: "")
        let raw = try container.decodeIfPresent(JSONValue.self, forKey: .data)
        data = raw == .null ? nil : raw
        deletedAt = container.decodeTimestampIfPresent(forKey: .deletedAt)
        createdAt = container.decodeTimestampIfPresent(forKey: .createdAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(entityType, forKey: .entityType)
        try container.encode(operation, forKey: .operation)
        try container.encode(entityId, forKey: .entityId)
        try container.encode(userId, forKey: .userId)
        try container.encodeOrNull(data, forKey: .data)
        try container.encodeTimestampIfPresent(deletedAt, forKey: .deletedAt)
        try container.encodeTimestampIfPresent(createdAt, forKey: .createdAt)
    }
}

extension ChangeEntry {
    /// What the server acknowledged with this entry (sync-engine R15): the version it wrote, at its `updated_at`
    /// (or, without one, the entry's time), or the delete, at its `deleted_at`. Nil for an entry of an unknown kind
    /// or without any time.
    public var acknowledgedVersion: AcknowledgedVersion? {
        guard let type = knownEntityType, let operation = knownOperation else { return nil }
        let deleted = operation == .delete
        let updated = data?["updated_at"]?.stringValue.flatMap(RFC3339.date(from:))
        guard let at = deleted ? (deletedAt ?? createdAt) : (updated ?? createdAt) else { return nil }
        return AcknowledgedVersion(
            entityType: type, id: entityId.lowercased(), acknowledgedAt: at, deleted: deleted,
            createdAt: deleted ? nil : data?["created_at"]?.stringValue.flatMap(RFC3339.date(from:)))
    }
}
