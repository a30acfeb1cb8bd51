import Foundation

/// `GET /api/v1/sync/digest` (api-v1 §14): a proof of what the server holds for the user at `cursor`.
public struct SyncDigest: Sendable, Hashable, Codable {
    public struct TypeDigest: Sendable, Hashable, Codable {
        public var count: Int
        public var hash: String

        public init(count: Int, hash: String) {
            self.count = count
            self.hash = hash
        }
    }

    /// The user's latest change id in the snapshot the digest was computed in.
    public var cursor: Int64
    public var algorithm: String
    public var count: Int
    public var hash: String
    /// By entity type (`event_type`, `event`, `property_definition`, `geofence`).
    public var types: [String: TypeDigest]
    /// By bucket, "00" to "ff": the sum of the hashes of the entities whose id ends in those two hex digits.
    public var buckets: [String: String]

    public init(
        cursor: Int64, algorithm: String, count: Int, hash: String, types: [String: TypeDigest],
        buckets: [String: String]
    ) {
        self.cursor = cursor
        self.algorithm = algorithm
        self.count = count
        self.hash = hash
        self.types = types
        self.buckets = buckets
    }
}

/// `GET /api/v1/sync/digest?bucket=XX` (api-v1 §14): every entity of one bucket with its hash, sorted by id.
public struct SyncDigestBucket: Sendable, Hashable, Codable {
    public struct Item: Sendable, Hashable, Codable {
        public var entityType: String
        public var id: String
        public var hash: String

        public init(entityType: String, id: String, hash: String) {
            self.entityType = entityType
            self.id = id
            self.hash = hash
        }

        enum CodingKeys: String, CodingKey {
            case id, hash
            case entityType = "entity_type"
        }
    }

    public var cursor: Int64
    public var bucket: String
    public var items: [Item]

    public init(cursor: Int64, bucket: String, items: [Item]) {
        self.cursor = cursor
        self.bucket = bucket
        self.items = items
    }
}
