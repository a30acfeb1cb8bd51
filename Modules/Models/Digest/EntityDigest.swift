import Foundation

/// The canonical form of one entity that the sync digest hashes (api-v1 §14): its REST object as our server emits it,
/// without the fields one device cannot know the same way as another (`user_id`, `created_at`, `updated_at`,
/// `ios_region_identifier`, the embedded `event_type`), without a top-level `null`, an empty `properties` or empty
/// `options`, plus `"entity_type"`, serialised by RFC 8785. The server reads it from its REST objects; a device from
/// its rows, through the create bodies, which hold the same fields (`EntityDigestTests` keeps the two equal).
public enum EntityDigest {
    public static let algorithm = "trendy-digest-1"

    static let excludedKeys: Set<String> = [
        "user_id", "created_at", "updated_at", "ios_region_identifier", "event_type",
    ]

    /// The canonical object of a REST object (or a create body) of `entityType`.
    public static func canonicalObject(_ object: JSONValue, entityType: MutationEntityType) -> JSONValue {
        guard case .object(var members) = object else { return object }
        for key in excludedKeys { members[key] = nil }
        members = members.filter { key, value in
            switch (key, value) {
            case (_, .null): false
            case ("properties", .object(let map)): !map.isEmpty
            case ("options", .array(let list)): !list.isEmpty
            default: true
            }
        }
        members["entity_type"] = .string(entityType.rawValue)
        return .object(members)
    }

    /// The bytes to hash for an entity the server returned.
    public static func canonicalBytes(_ entity: APIEntity) throws -> [UInt8] {
        let object: JSONValue =
            switch entity {
            case .eventType(let type): try JSONValueEncoder.encode(type)
            case .event(let event): try JSONValueEncoder.encode(event)
            case .geofence(let fence): try JSONValueEncoder.encode(fence)
            case .propertyDefinition(let definition): try JSONValueEncoder.encode(definition)
            }
        return CanonicalJSON.bytes(canonicalObject(object, entityType: entity.entityType))
    }

    public static func canonicalBytes(_ type: EventType) throws -> [UInt8] {
        try bytes(CreateEventTypeRequest(type), .eventType)
    }

    public static func canonicalBytes(_ event: Event) throws -> [UInt8] {
        try bytes(CreateEventRequest(event), .event)
    }

    public static func canonicalBytes(_ fence: Geofence) throws -> [UInt8] {
        try bytes(CreateGeofenceRequest(fence), .geofence)
    }

    public static func canonicalBytes(_ definition: PropertyDefinition) throws -> [UInt8] {
        try bytes(CreatePropertyDefinitionRequest(definition), .propertyDefinition)
    }

    private static func bytes(_ body: some Encodable, _ entityType: MutationEntityType) throws -> [UInt8] {
        CanonicalJSON.bytes(canonicalObject(try JSONValueEncoder.encode(body), entityType: entityType))
    }

    /// An entity's bucket: the last two hex digits of its id, lowercase.
    public static func bucket(of id: String) -> String { String(id.suffix(2)).lowercased() }

    /// Every bucket name, "00" to "ff".
    public static let bucketNames: [String] = (0..<256).map { String(format: "%02x", $0) }

    /// True for a bucket name: two lowercase hex digits.
    public static func isBucketName(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// Adds entity hashes up into a digest: in total, by entity type and by bucket (api-v1 §14).
public struct DigestBuilder: Sendable {
    private var total = DigestSum()
    private var count = 0
    private var types: [MutationEntityType: (count: Int, sum: DigestSum)] = [:]
    private var buckets: [String: DigestSum] = [:]

    public init() {}

    /// One entity, by its SHA-256 (32 bytes).
    public mutating func add(_ entityType: MutationEntityType, id: String, hash: [UInt8]) {
        let value = DigestSum(hash: hash)
        total += value
        count += 1
        let type = types[entityType] ?? (0, DigestSum())
        types[entityType] = (type.count + 1, type.sum + value)
        buckets[EntityDigest.bucket(of: id), default: DigestSum()] += value
    }

    public func digest(cursor: Int64) -> SyncDigest {
        SyncDigest(
            cursor: cursor, algorithm: EntityDigest.algorithm, count: count, hash: total.hexString,
            types: Dictionary(
                uniqueKeysWithValues: MutationEntityType.allCases.map { type in
                    let entry = types[type] ?? (0, DigestSum())
                    return (type.rawValue, SyncDigest.TypeDigest(count: entry.count, hash: entry.sum.hexString))
                }),
            buckets: Dictionary(
                uniqueKeysWithValues: EntityDigest.bucketNames.map { ($0, (buckets[$0] ?? DigestSum()).hexString) }))
    }
}
