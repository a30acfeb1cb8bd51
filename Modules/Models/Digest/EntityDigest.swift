import Foundation

/// The canonical form of one entity that the sync digest hashes (api-v1 §14): its REST object as our server emits it,
/// without the fields one device cannot know the same way as another (`user_id`, `created_at`, `updated_at`,
/// `ios_region_identifier`, the embedded `event_type`), without a top-level `null`, an empty `properties` or empty
/// `options`, plus `"entity_type"`, serialised by RFC 8785. The server reads it from its REST objects; a device from
/// its rows, through the create bodies, which hold the same fields (`EntityDigestTests` keeps the two equal).
public enum EntityDigest {
    /// The name the digest answers with (api-v1 §14).
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
        let object: JSONValue
        switch entity {
        case .eventType(let type): object = try JSONValueEncoder.encode(type)
        case .event(let event):
            return eventBytes(
                id: event.id, eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes,
                isAllDay: event.isAllDay, sourceType: event.sourceType, details: event.details,
                properties: event.properties)
        case .geofence(let fence): object = try JSONValueEncoder.encode(fence)
        case .propertyDefinition(let definition): object = try JSONValueEncoder.encode(definition)
        }
        return CanonicalJSON.bytes(canonicalObject(object, entityType: entity.entityType))
    }

    /// An event's canonical bytes written from its fields: the bytes `canonicalObject` gives for its REST object or
    /// its create body, without the `Codable` round trip, which took most of a digest's time (an account is mostly
    /// events; docs/performance.md, "The sync digest"). `DigestTests` holds the two ways equal for every field.
    public static func eventBytes(
        id: String, eventTypeId: String, timestamp: Date, notes: String?, isAllDay: Bool, sourceType: EventSourceType,
        details: EventDetails, properties: [String: PropertyValue]
    ) -> [UInt8] {
        var members: [(name: String, value: JSONValue)] = [
            ("entity_type", .string(MutationEntityType.event.rawValue)), ("event_type_id", .string(eventTypeId)),
            ("id", .string(id)), ("is_all_day", .bool(isAllDay)), ("source_type", .string(sourceType.rawValue)),
            ("timestamp", .string(RFC3339.string(from: timestamp))),
        ]
        if let notes { members.append(("notes", .string(notes))) }
        if !details.isEmpty {
            for field in EventDetails.fields {
                if let value = details[field] { members.append((field.key, value.json)) }
            }
        }
        if !properties.isEmpty { members.append(("properties", .object(properties.mapValues(\.json)))) }
        return CanonicalJSON.bytes(members: members)
    }

    /// The canonical object of a local event type.
    public static func canonicalBytes(_ type: EventType) throws -> [UInt8] {
        try bytes(CreateEventTypeRequest(type), .eventType)
    }

    /// The canonical object of a local event.
    public static func canonicalBytes(_ event: Event) throws -> [UInt8] {
        eventBytes(
            id: event.id, eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes,
            isAllDay: event.isAllDay, sourceType: event.sourceType, details: event.details,
            properties: event.properties)
    }

    /// The canonical object of a local geofence.
    public static func canonicalBytes(_ fence: Geofence) throws -> [UInt8] {
        try bytes(CreateGeofenceRequest(fence), .geofence)
    }

    /// The canonical object of a local property definition.
    public static func canonicalBytes(_ definition: PropertyDefinition) throws -> [UInt8] {
        try bytes(CreatePropertyDefinitionRequest(definition), .propertyDefinition)
    }

    private static func bytes(_ body: some Encodable, _ entityType: MutationEntityType) throws -> [UInt8] {
        CanonicalJSON.bytes(canonicalObject(try JSONValueEncoder.encode(body), entityType: entityType))
    }

    /// An entity's bucket: the last two hex digits of its id, lowercase.
    public static func bucket(of id: String) -> String { String(id.suffix(2)).lowercased() }

    /// `bucket(of:)` as a number, 0 to 255, without making a string (0 for an id that does not end in hex digits,
    /// which no stored id does).
    public static func bucketNumber(of id: String) -> Int {
        var utf8 = id.utf8.reversed().makeIterator()
        guard let low = utf8.next().flatMap(hexValue), let high = utf8.next().flatMap(hexValue) else { return 0 }
        return high << 4 | low
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

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
    /// By `MutationEntityType.allCases` index, and by bucket number (0x00–0xff): arrays, not dictionaries, since
    /// every entity of an account passes here.
    private var types = [(count: Int, sum: DigestSum)](
        repeating: (0, DigestSum()), count: MutationEntityType.allCases.count)
    private var buckets = [DigestSum](repeating: DigestSum(), count: 256)
    private static let typeOrder = MutationEntityType.allCases

    /// A builder that has added nothing.
    public init() {}

    /// One entity, by its SHA-256 (32 bytes).
    public mutating func add(_ entityType: MutationEntityType, id: String, hash: [UInt8]) {
        add(entityType, id: id, sum: DigestSum(hash: hash))
    }

    /// One entity, by its SHA-256 read as a `DigestSum`.
    public mutating func add(_ entityType: MutationEntityType, id: String, sum value: DigestSum) {
        total += value
        count += 1
        if let type = Self.typeOrder.firstIndex(of: entityType) {
            types[type].count += 1
            types[type].sum += value
        }
        buckets[EntityDigest.bucketNumber(of: id)] += value
    }

    /// The digest of what was added, stamped with `cursor`.
    public func digest(cursor: Int64) -> SyncDigest {
        SyncDigest(
            cursor: cursor, algorithm: EntityDigest.algorithm, count: count, hash: total.hexString,
            types: Dictionary(
                uniqueKeysWithValues: zip(Self.typeOrder, types).map { type, entry in
                    (type.rawValue, SyncDigest.TypeDigest(count: entry.count, hash: entry.sum.hexString))
                }),
            buckets: Dictionary(
                uniqueKeysWithValues: zip(EntityDigest.bucketNames, buckets).map { ($0, $1.hexString) }))
    }
}
