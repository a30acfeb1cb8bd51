import Foundation
import Models

/// A field of a PUT body: absent, explicit `null`, or a value (api-v1 §3.5).
enum Field<Value> {
    case absent
    case null
    case value(Value)

    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }
}

/// Reads the members of a JSON request object, collecting every failing field (api-v1 §3.1, §8.3).
struct BodyReader {
    let members: [String: JSONValue]
    /// Prefix for field paths (`events[3].` inside a batch item is reported by index instead).
    private(set) var errors: [FieldError] = []

    /// Reads a request body that must be one JSON object, parsing it unless the pipeline already has. An envelope
    /// (the batch body) leaves the text checks to the reader of each item.
    static func object(of request: APIRequest, envelope: Bool = false) throws(APIError) -> BodyReader {
        let json: JSONValue
        do {
            json = try request.parsedBody ?? JSONText.parse(request.body)
        } catch {
            throw APIError(.badRequest, "the request body is not valid JSON (\(error))")
        }
        guard let members = json.objectValue else {
            throw APIError(.badRequest, "the request body must be a JSON object")
        }
        return BodyReader(members: members, checkingText: !envelope)
    }

    /// A reader of one entity's members; every string in them is held to `TextLimit` at once, so a NUL or an
    /// oversized string fails the body (or the batch item) at `finish()` whichever field it is in, read or not.
    init(members: [String: JSONValue], checkingText: Bool = true) {
        self.members = members
        if checkingText {
            for (field, problem) in TextLimit.problems(in: members) {
                fail(field, problem.code, "\(field) \(problem)")
            }
        }
    }

    mutating func fail(_ field: String, _ code: String, _ message: String) {
        errors.append(FieldError(field: field, message: message, code: code))
    }

    /// Throws the collected field errors as one 400 `validation`.
    func finish() throws(APIError) {
        guard errors.isEmpty else { throw APIError.validation(errors) }
    }

    // MARK: Raw access

    func raw(_ key: String) -> Field<JSONValue> {
        guard let value = members[key] else { return .absent }
        return value == .null ? .null : .value(value)
    }

    // MARK: Typed fields

    /// A string field; `""` is a value here. Wrong types are `invalid_type`.
    mutating func string(_ key: String) -> Field<String> {
        switch raw(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let value):
            guard let text = value.stringValue else {
                fail(key, "invalid_type", "\(key) must be a string")
                return .absent
            }
            return .value(text)
        }
    }

    /// A required non-empty string (create bodies).
    mutating func requiredString(_ key: String) -> String? {
        switch string(key) {
        case .value(let text) where !text.isEmpty: return text
        case .value, .null, .absent:
            if !errors.contains(where: { $0.field == key }) { fail(key, "required", "\(key) is required") }
            return nil
        }
    }

    /// A string that may not be `""` when present (PUT of a required string).
    mutating func nonEmptyString(_ key: String) -> Field<String> {
        let field = string(key)
        if case .value(let text) = field, text.isEmpty {
            fail(key, "required", "\(key) must not be empty")
            return .absent
        }
        return field
    }

    mutating func bool(_ key: String) -> Field<Bool> {
        switch raw(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let value):
            guard let flag = value.boolValue else {
                fail(key, "invalid_type", "\(key) must be true or false")
                return .absent
            }
            return .value(flag)
        }
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>? = nil) -> Field<Double> {
        switch raw(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let value):
            guard let number = value.doubleValue else {
                fail(key, "invalid_type", "\(key) must be a number")
                return .absent
            }
            if let range, !range.contains(number) {
                fail(
                    key, "out_of_range",
                    "\(key) must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))")
                return .absent
            }
            return .value(number)
        }
    }

    /// A JSON integer in the 32-bit range.
    mutating func integer(_ key: String) -> Field<Int> {
        switch raw(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let value):
            guard let number = value.doubleValue, number.rounded() == number else {
                fail(key, "invalid_type", "\(key) must be an integer")
                return .absent
            }
            guard number >= Double(Int32.min), number <= Double(Int32.max) else {
                fail(key, "out_of_range", "\(key) is out of the 32-bit integer range")
                return .absent
            }
            return .value(Int(number))
        }
    }

    /// An RFC 3339 timestamp, stored as milliseconds.
    mutating func timestamp(_ key: String) -> Field<Int64> {
        switch string(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let text):
            guard let milliseconds = RFC3339.milliseconds(from: text) else {
                fail(key, "invalid_format", "\(key) must be an RFC 3339 date-time with an offset")
                return .absent
            }
            return .value(milliseconds)
        }
    }

    /// A canonical UUID reference, lowercased; `""` is `invalid_uuid`.
    mutating func uuid(_ key: String) -> Field<String> {
        switch string(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let text):
            guard UUIDText.isCanonical(text) else {
                fail(key, "invalid_uuid", "\(key) must be a canonical UUID")
                return .absent
            }
            return .value(text.lowercased())
        }
    }

    /// One of `allowed`; anything else is `invalid_value`.
    mutating func enumeration(_ key: String, allowed: [String]) -> Field<String> {
        let field = string(key)
        if case .value(let text) = field, !allowed.contains(text) {
            fail(key, "invalid_value", "\(key) must be one of \(allowed.joined(separator: ", "))")
            return .absent
        }
        return field
    }

    mutating func stringArray(_ key: String) -> Field<[String]> {
        switch raw(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let value):
            guard let elements = value.arrayValue, let strings = Optional(elements.compactMap(\.stringValue)),
                strings.count == elements.count
            else {
                fail(key, "invalid_type", "\(key) must be an array of strings")
                return .absent
            }
            return .value(strings)
        }
    }

    /// The `properties` object: each entry `{"type": <one of the 8>, "value": <any JSON>}` (api-v1 §4.5); with
    /// `removals`, an entry may also be `null` (`properties_patch`, §3.5a: remove that key).
    mutating func properties(_ key: String = "properties", removals: Bool = false) -> Field<[String: JSONValue]> {
        switch raw(key) {
        case .absent: return .absent
        case .null: return .null
        case .value(let value):
            guard let entries = value.objectValue else {
                fail(key, "invalid_type", "\(key) must be an object")
                return .absent
            }
            var valid = true
            let kinds = Set(PropertyType.allCases.map(\.rawValue))
            for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                if removals && entry == .null && !name.isEmpty { continue }
                let members = entry.objectValue
                let type = members?["type"]?.stringValue
                if name.isEmpty || members == nil || type.map(kinds.contains) != true || members?["value"] == nil
                    || members?.count != 2
                {
                    fail(
                        "\(key).\(name)", "invalid_value",
                        "\(key).\(name) must be {\"type\": one of \(PropertyType.allCases.map(\.rawValue).joined(separator: ", ")), \"value\": …}"
                    )
                    valid = false
                }
            }
            return valid ? .value(entries) : .absent
        }
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number ? String(Int(number)) : String(number)
    }
}
