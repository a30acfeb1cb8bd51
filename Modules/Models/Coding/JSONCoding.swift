import Foundation

/// The one JSON configuration of the project: keys sorted, slashes unescaped.
///
/// Payloads are stored with it and request bodies are re-encoded with it, so a stored payload decoded into its
/// typed request and encoded again gives back the same bytes (sync-engine §1.6). Dates are written by the
/// types themselves as RFC 3339 strings, so the date strategies below are only a safety net.
public enum JSONCoding {
    /// An encoder of sorted keys, `/` unescaped and RFC 3339 dates.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return encoder
    }

    /// A decoder that reads every RFC 3339 form api-v1 §3.2 accepts.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date: \(text)")
            }
            return date
        }
        return decoder
    }

    /// Encodes with the shared configuration.
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try sharedEncoder.encode(value)
    }

    /// Decodes with the shared configuration. Input nested deeper than `maximumDepth` is refused before it reaches
    /// `JSONDecoder`, which traps on it (Swift 6.3.1: more than 512 levels with no line break before them crash
    /// the process while building the error's location; found by libFuzzer, docs/history/reliability.md).
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        if let offset = firstOffsetBeyondMaximumDepth(data) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "nesting deeper than \(maximumDepth) at byte \(offset)"))
        }
        return try sharedDecoder.decode(type, from: data)
    }

    /// The deepest nesting a decoded document may have; `JSONText` parses to the same limit.
    public static let maximumDepth = 512

    /// Where the document opens its (maximumDepth + 1)th nested array or object, or nil. Brackets inside strings
    /// do not count.
    static func firstOffsetBeyondMaximumDepth(_ data: Data) -> Int? {
        data.withUnsafeBytes { raw in
            // An index loop over typed bytes: `enumerated()` stays generic and slow in debug builds, where the
            // tests and the proofs run every decode through here.
            // Bytes bound as `UInt8` (any memory may be) and read only inside `withUnsafeBytes`.
            let bytes = raw.bindMemory(to: UInt8.self)
            var depth = 0
            var inString = false
            var escaped = false
            for offset in bytes.indices {
                let byte = bytes[offset]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > maximumDepth { return offset }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
            }
            return nil
        }
    }

    private static let sharedEncoder = makeEncoder()
    private static let sharedDecoder = makeDecoder()
}

// MARK: - Container helpers for the wire conventions

extension KeyedDecodingContainer {
    /// The keys among `names` that are present with an explicit `null` (a partial update's clears, api-v1 §3.5).
    func nullKeys(_ names: Set<String>) throws -> Set<String> {
        var cleared: Set<String> = []
        for name in names {
            guard let key = Key(stringValue: name), contains(key) else { continue }
            if try decodeNil(forKey: key) { cleared.insert(name) }
        }
        return cleared
    }
}

extension KeyedDecodingContainer {
    /// A required RFC 3339 timestamp. Absent, null or unparseable values throw.
    func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = RFC3339.date(from: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an RFC 3339 date")
        }
        return date
    }

    /// An optional RFC 3339 timestamp: absent, null, a non-string or an unparseable string all read as nil.
    func decodeTimestampIfPresent(forKey key: Key) -> Date? {
        guard let text = try? decodeIfPresent(String.self, forKey: key) else { return nil }
        return RFC3339.date(from: text)
    }

    /// An optional RFC 3339 timestamp read strictly (a local entity's shape): absent or null is nil, anything else
    /// must parse.
    func decodeTimestampStrictlyIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeTimestamp(forKey: key)
    }

    /// An entity id: a UUID in any case, returned lowercase (every stored id is).
    func decodeId(forKey key: Key) throws -> String {
        let text = try decode(String.self, forKey: key)
        guard UUID(uuidString: text) != nil else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a UUID")
        }
        return text.lowercased()
    }

    /// An optional entity id: absent or null is nil, anything else must be a UUID.
    func decodeIdIfPresent(forKey key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeId(forKey: key)
    }

    /// One of `Value`'s raw values, strictly: the enums' own decoders are lenient for server data (sync-engine §4.10).
    func decodeKnown<Value: RawRepresentable & CaseIterable>(_ type: Value.Type, forKey key: Key) throws -> Value
    where Value.RawValue == String {
        let text = try decode(String.self, forKey: key)
        guard let value = Value(rawValue: text) else {
            let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not one of \(known)")
        }
        return value
    }

    /// As `decodeKnown`, nil when absent or null.
    func decodeKnownIfPresent<Value: RawRepresentable & CaseIterable>(
        _ type: Value.Type, forKey key: Key
    ) throws
        -> Value?
    where Value.RawValue == String {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeKnown(type, forKey: key)
    }

    /// A value that reads as `fallback` when absent or null.
    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key, default fallback: Value) throws -> Value {
        try decodeIfPresent(type, forKey: key) ?? fallback
    }
}

extension KeyedEncodingContainer {
    mutating func encodeTimestamp(_ date: Date, forKey key: Key) throws {
        try encode(RFC3339.string(from: date), forKey: key)
    }

    mutating func encodeTimestampIfPresent(_ date: Date?, forKey key: Key) throws {
        if let date { try encodeTimestamp(date, forKey: key) }
    }

    /// Writes the key in every case: the value, or an explicit `null` (three-state PUT bodies).
    /// A partial update's field (api-v1 §3.5): its value, `null` when `cleared` names it, else left out.
    mutating func encode<Value: Encodable>(_ value: Value?, forKey key: Key, cleared: Set<String>) throws {
        if let value {
            try encode(value, forKey: key)
        } else if cleared.contains(key.stringValue) {
            try encodeNil(forKey: key)
        }
    }

    mutating func encodeOrNull<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeTimestampOrNull(_ date: Date?, forKey key: Key) throws {
        try encodeOrNull(date.map(RFC3339.string(from:)), forKey: key)
    }
}
