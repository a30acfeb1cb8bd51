import Foundation

/// The `data` of a create or update change entry (api-v1 §6.3).
public enum ChangeSnapshot {
    /// The keys of each entity that an explicit `null` clears (api-v1 §3.5, our server).
    public static let clearableKeys: [MutationEntityType: [String]] = [
        .event: ["notes"] + EventDetails.fields.filter(\.clearable).map(\.key),
        .eventType: EventTypeFields.clearableKeys.sorted(),
        .geofence: GeofenceFields.clearableKeys.sorted(),
        .propertyDefinition: PropertyDefinitionFields.clearableKeys.sorted(),
    ]

    /// The REST shape of `entity` without `event_type`. With `explicitNulls` (our server) every clearable field is
    /// present, `null` when empty, and an event always carries `properties`; without (the original backend) nulls
    /// and empty maps are omitted.
    public static func data<Entity: Encodable>(
        _ entity: Entity, of type: MutationEntityType, explicitNulls: Bool
    )
        throws -> JSONValue
    {
        guard case .object(var members) = try JSONValueEncoder.encode(entity) else { return .null }
        members["event_type"] = nil
        if explicitNulls {
            for key in clearableKeys[type] ?? [] where members[key] == nil { members[key] = .null }
            if type == .event && members["properties"] == nil { members["properties"] = .object([:]) }
        }
        return .object(members)
    }
}

// MARK: - Fast decoding

extension ChangeFeedResponse {
    /// Decodes a page from its JSON bytes through `JSONText`, with the same rules as `init(from:)`. A page is mostly
    /// entity snapshots kept as `JSONValue`, and `Decodable` finds each value's type by trying them in turn; this
    /// path reads a 500-row page several times faster (docs/history/performance.md).
    ///
    /// `JSONText` holds numbers as `Double`, exact up to 2^53. A page with a cursor or change id beyond that (int64,
    /// api-v1 §3.3) is decoded by `init(from:)` instead, which reads integers exactly.
    public init(jsonBytes: some Collection<UInt8>) throws(JSONParseError) {
        do {
            try self.init(fastJSONBytes: jsonBytes)
        } catch  where error.message == JSONMembers.inexactInteger {
            do {
                self = try JSONCoding.decode(ChangeFeedResponse.self, from: Data(jsonBytes))
            } catch {
                throw JSONParseError(message: "a change feed page: \(error)")
            }
        }
    }

    private init(fastJSONBytes jsonBytes: some Collection<UInt8>) throws(JSONParseError) {
        let page = try JSONMembers(try JSONText.parse(jsonBytes), "a change feed page")
        self.init(
            changes: try page.array("changes").map { entry throws(JSONParseError) in try ChangeEntry(json: entry) },
            nextCursor: try page.int64("next_cursor"), hasMore: try page.bool("has_more", default: false))
    }
}

extension ChangeEntry {
    /// One row of a parsed page; see `ChangeFeedResponse.init(jsonBytes:)`.
    public init(json: JSONValue) throws(JSONParseError) {
        let row = try JSONMembers(json, "a change entry")
        let data = row.members["data"]
        self.init(
            id: try row.int64("id"), entityType: try row.string("entity_type"), operation: try row.string("operation"),
            entityId: try row.string("entity_id"), userId: try row.string("user_id"), data: data == .null ? nil : data,
            deletedAt: row.timestamp("deleted_at"), createdAt: row.timestamp("created_at"))
    }
}

/// The members of a parsed JSON object, read with the rules `Decodable` follows in this module: an absent or null
/// member reads as its default, a member of the wrong type is an error.
struct JSONMembers {
    let members: [String: JSONValue]
    let what: String

    init(_ value: JSONValue, _ what: String) throws(JSONParseError) {
        guard case .object(let members) = value else { throw JSONParseError(message: "\(what) must be an object") }
        self.members = members
        self.what = what
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    private func mistyped(_ key: String, _ type: String) -> JSONParseError {
        JSONParseError(message: "\(key) of \(what) must be \(type)")
    }

    func string(_ key: String, default fallback: String = "") throws(JSONParseError) -> String {
        guard let value = present(key) else { return fallback }
        guard case .string(let text) = value else { throw mistyped(key, "a string") }
        return text
    }

    /// The message of the error `int64` throws for an integer a `Double` may have rounded.
    static let inexactInteger = "an integer beyond 2^53"

    func int64(_ key: String) throws(JSONParseError) -> Int64 {
        guard let value = present(key) else { throw JSONParseError(message: "\(what) has no \(key)") }
        if case .number(let number) = value, number.magnitude >= 9_007_199_254_740_992 {
            throw JSONParseError(message: Self.inexactInteger)
        }
        guard let number = value.intValue else { throw mistyped(key, "an integer") }
        return Int64(number)
    }

    func bool(_ key: String, default fallback: Bool) throws(JSONParseError) -> Bool {
        guard let value = present(key) else { return fallback }
        guard case .bool(let flag) = value else { throw mistyped(key, "true or false") }
        return flag
    }

    func array(_ key: String) throws(JSONParseError) -> [JSONValue] {
        guard let value = present(key) else { return [] }
        guard case .array(let elements) = value else { throw mistyped(key, "an array") }
        return elements
    }

    /// Lenient like every instant the client reads (S2): anything but a valid RFC 3339 string is absent.
    func timestamp(_ key: String) -> Date? {
        present(key)?.stringValue.flatMap(RFC3339.date(from:))
    }
}
