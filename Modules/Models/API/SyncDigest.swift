import Foundation

/// `GET /api/v1/sync/digest` (api-v1 §14): a proof of what the server holds for the user at `cursor`.
public struct SyncDigest: Sendable, Hashable, Codable {
    /// The digest of one entity type.
    public struct TypeDigest: Sendable, Hashable, Codable {
        /// How many entities of the type the user has.
        public var count: Int
        /// The sum of their hashes, lowercase hex.
        public var hash: String

        /// A type's digest.
        public init(count: Int, hash: String) {
            self.count = count
            self.hash = hash
        }
    }

    /// The user's latest change id in the snapshot the digest was computed in.
    public var cursor: Int64
    /// `trendy-digest-1`: the canonical JSON and the sum of api-v1 §14.
    public var algorithm: String
    /// How many entities the user has.
    public var count: Int
    /// The sum modulo 2^256 of every entity's hash, lowercase hex.
    public var hash: String
    /// By entity type (`event_type`, `event`, `property_definition`, `geofence`).
    public var types: [String: TypeDigest]
    /// By bucket, "00" to "ff": the sum of the hashes of the entities whose id ends in those two hex digits.
    public var buckets: [String: String]

    /// A digest.
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
    /// One entity.
    public struct Item: Sendable, Hashable, Codable {
        /// Its kind, as the feed spells it.
        public var entityType: String
        /// Its id.
        public var id: String
        /// The SHA-256 of its canonical object, lowercase hex.
        public var hash: String

        /// An entity's line.
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

    /// The user's latest change id in the snapshot the bucket was listed in.
    public var cursor: Int64
    /// Two lowercase hex digits.
    public var bucket: String
    /// Its entities, sorted by id.
    public var items: [Item]

    /// A bucket's listing.
    public init(cursor: Int64, bucket: String, items: [Item]) {
        self.cursor = cursor
        self.bucket = bucket
        self.items = items
    }
}
