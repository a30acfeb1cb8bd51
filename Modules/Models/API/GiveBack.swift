import Foundation

/// One entity a device gives back to a server that went back to a backup (api-v1 §15.1): the entity as the device
/// holds it, or its delete, with the time the server first acknowledged that version.
public struct GiveBackItem: Sendable, Hashable, Codable {
    /// The entity's kind.
    public var entityType: MutationEntityType
    /// The entity's id.
    public var id: String
    /// The server's `updated_at` of the version the device holds; for a delete, when it was deleted.
    public var acknowledgedAt: Date
    /// True when the version given back is a delete.
    public var deleted: Bool
    /// The entity's REST object (api-v1 §4); nil for a delete.
    public var data: JSONValue?
    /// The members of `data` that hold the device's queued edits, which no server acknowledged: written now, not at
    /// `acknowledgedAt` (api-v1 §15.1). Empty when the row holds none.
    public var pending: [String]

    /// An item.
    public init(
        entityType: MutationEntityType, id: String, acknowledgedAt: Date, deleted: Bool, data: JSONValue?,
        pending: [String] = []
    ) {
        self.entityType = entityType
        self.id = id
        self.acknowledgedAt = acknowledgedAt
        self.deleted = deleted
        self.data = data
        self.pending = pending
    }

    enum CodingKeys: String, CodingKey {
        case entityType = "entity_type"
        case id
        case acknowledgedAt = "acknowledged_at"
        case deleted, data, pending
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entityType = try container.decode(MutationEntityType.self, forKey: .entityType)
        id = try container.decode(String.self, forKey: .id)
        acknowledgedAt = try container.decode(Date.self, forKey: .acknowledgedAt)
        deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        data = try container.decodeIfPresent(JSONValue.self, forKey: .data)
        pending = try container.decodeIfPresent([String].self, forKey: .pending) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entityType, forKey: .entityType)
        try container.encode(id, forKey: .id)
        try container.encode(acknowledgedAt, forKey: .acknowledgedAt)
        try container.encode(deleted, forKey: .deleted)
        try container.encodeIfPresent(data, forKey: .data)
        if !pending.isEmpty { try container.encode(pending, forKey: .pending) }
    }

    /// The order items are applied in (api-v1 §15.1), smallest first: parents before children — types, definitions,
    /// geofences, events — and deletes after every upsert, children first.
    public static func applicationRank(of type: MutationEntityType, deleted: Bool) -> Int {
        let parentsFirst: [MutationEntityType] = [.eventType, .propertyDefinition, .geofence, .event]
        let position = parentsFirst.firstIndex(of: type) ?? 0
        return deleted ? 2 * parentsFirst.count - 1 - position : position
    }

    /// This item's `applicationRank`.
    public var applicationRank: Int { Self.applicationRank(of: entityType, deleted: deleted) }

    /// When the incarnation of an item's version began, in milliseconds (api-v1 §15.1): its `created_at`, never
    /// after its acknowledgment; the acknowledgment itself for an item without one.
    public static func incarnationBegan(createdAt: Int64?, acknowledgedAt: Int64) -> Int64 {
        min(createdAt ?? acknowledgedAt, acknowledgedAt)
    }

    /// Whether a delete made at `deletedAt` ended the incarnation that began at `began` (api-v1 §15.1): a delete
    /// ends the incarnation it finds, one created at or before it, however late an edit of that incarnation was
    /// acknowledged since; one created after it is another. Both sides of the rule — a delete given back over a row,
    /// a version given back over a remembered delete — ask it, so the two items end the same in either order.
    public static func deleteEnds(incarnationBegan began: Int64, deletedAt: Int64) -> Bool {
        began <= deletedAt
    }
}

/// `POST /api/v1/sync/give-back`'s body.
public struct GiveBackRequest: Sendable, Hashable, Codable {
    /// The items, applied by the server in `applicationRank` order.
    public var items: [GiveBackItem]

    /// A body of `items`.
    public init(items: [GiveBackItem]) { self.items = items }
}

/// What the server did with one item (api-v1 §15.1).
public enum GiveBackOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// Taken: the server held an older version, or nothing.
    case applied
    /// The server holds this version or a newer one (or, for a delete, had deleted it already).
    case kept
    /// The server deleted the entity at or after the given-back version.
    case deleted
    /// Refused by the entity's own rules (a parent the server does not hold, a name another entity took since).
    case refused
}

/// One item's outcome.
public struct GiveBackResult: Sendable, Hashable, Codable {
    /// The item's kind.
    public var entityType: MutationEntityType
    /// The item's id.
    public var id: String
    /// What the server did with it.
    public var outcome: GiveBackOutcome
    /// Why a refused item was refused.
    public var detail: String?
    /// For an item refused because another entity holds its name: that entity's id, to merge into (api-v1 §8.1).
    public var existingId: String?

    /// A result.
    public init(
        entityType: MutationEntityType, id: String, outcome: GiveBackOutcome, detail: String? = nil,
        existingId: String? = nil
    ) {
        self.entityType = entityType
        self.id = id
        self.outcome = outcome
        self.detail = detail
        self.existingId = existingId
    }

    enum CodingKeys: String, CodingKey {
        case entityType = "entity_type"
        case id, outcome, detail
        case existingId = "existing_id"
    }
}

/// `POST /api/v1/sync/give-back`'s answer: one result per item, in the order the server applied them.
public struct GiveBackResponse: Sendable, Hashable, Codable {
    /// One result per item.
    public var results: [GiveBackResult]

    /// An answer of `results`.
    public init(results: [GiveBackResult]) { self.results = results }

    /// How many items had `outcome`.
    public func count(_ outcome: GiveBackOutcome) -> Int { results.count { $0.outcome == outcome } }
}
