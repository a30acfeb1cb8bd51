import Foundation

/// The text a client may send (api-v1 §3.1): no NUL character anywhere, and at most a few kilobytes per string, so
/// that every stored row, and every answer built from rows, stays bounded. The server refuses a string beyond
/// these with 400 `validation` naming the field; the client checks them before a local write, so such an edit fails
/// at once instead of later as a dead letter.
public enum TextLimit {
    /// UTF-8 bytes of an event's `notes`.
    public static let notesBytes = 16_384
    /// UTF-8 bytes of a string inside `properties` (a property's value).
    public static let propertyValueBytes = 4_096
    /// UTF-8 bytes of every other string: names, labels, keys, colors, icons, select options, ids, enumerations,
    /// and the keys of any JSON object.
    public static let otherBytes = 512
    /// UTF-8 bytes of an event's whole `properties` object as compact JSON (a `properties_patch` too, and the map it
    /// leaves): with the string limits, this bounds every event, so every page of events is bounded by its `limit`.
    public static let propertiesBytes = 32_768

    /// Why a string is refused; `code` is the api-v1 §8.3 field error code.
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        /// U+0000 anywhere: SQLite's C interface and PostgreSQL's text type cannot keep it, so it would be truncated
        /// or refused later.
        case nulCharacter
        /// Longer than the limit, in UTF-8 bytes.
        case tooLong(limitBytes: Int)

        /// The field error code: `nul_character` or `too_long`.
        public var code: String {
            switch self {
            case .nulCharacter: "nul_character"
            case .tooLong: "too_long"
            }
        }

        public var description: String {
            switch self {
            case .nulCharacter: "must not contain a NUL character (U+0000)"
            case .tooLong(let limit): "must be at most \(limit) bytes of UTF-8"
            }
        }
    }

    /// The first problem of `text` under a limit of `limitBytes`, or nil when it may be sent.
    public static func problem(in text: String, limitBytes: Int) -> Problem? {
        var count = 0
        for byte in text.utf8 {
            if byte == 0 { return .nulCharacter }
            count += 1
        }
        return count > limitBytes ? .tooLong(limitBytes: limitBytes) : nil
    }

    /// The limit of a string at `field`, a top-level member of an entity's request body: `notes`, anything under
    /// `properties` or `properties_patch` (a value), or any other field.
    public static func limitBytes(ofMember field: String) -> Int {
        switch field {
        case "notes": notesBytes
        case "properties", "properties_patch": propertyValueBytes
        default: otherBytes
        }
    }

    /// Every problem of the strings in an entity's request body, with the path of each (`notes`,
    /// `properties.mood.value`, `options[2]`); object keys are checked as `otherBytes` strings.
    public static func problems(in members: [String: JSONValue]) -> [(field: String, problem: Problem)] {
        var found: [(field: String, problem: Problem)] = []
        for key in members.keys.sorted() {
            guard let value = members[key] else { continue }
            if let problem = problem(in: key, limitBytes: otherBytes) {
                found.append((Self.printable(key), problem))
                continue
            }
            collect(value, path: key, limitBytes: limitBytes(ofMember: key), into: &found)
            if key == "properties" || key == "properties_patch", case .object = value,
                JSONText.string(value).utf8.count > propertiesBytes
            {
                found.append((key, .tooLong(limitBytes: propertiesBytes)))
            }
        }
        return found
    }

    private static func collect(
        _ value: JSONValue, path: String, limitBytes: Int, into found: inout [(field: String, problem: Problem)]
    ) {
        switch value {
        case .string(let text):
            if let problem = problem(in: text, limitBytes: limitBytes) { found.append((path, problem)) }
        case .array(let items):
            for (index, item) in items.enumerated() {
                collect(item, path: "\(path)[\(index)]", limitBytes: limitBytes, into: &found)
            }
        case .object(let members):
            for key in members.keys.sorted() {
                guard let item = members[key] else { continue }
                if let problem = problem(in: key, limitBytes: otherBytes) {
                    found.append(("\(path).\(Self.printable(key))", problem))
                    continue
                }
                collect(item, path: "\(path).\(key)", limitBytes: limitBytes, into: &found)
            }
        case .null, .bool, .number:
            break
        }
    }

    /// A refused key as it can be printed: NULs shown as `\u0000`, at most 64 characters.
    private static func printable(_ key: String) -> String {
        let shown = key.replacingOccurrences(of: "\u{0}", with: "\\u0000")
        return shown.count > 64 ? String(shown.prefix(64)) + "…" : shown
    }
}
