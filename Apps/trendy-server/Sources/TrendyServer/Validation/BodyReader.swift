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

    /// `field` with its value converted by `convert`. A value `convert` refuses (nil) is reported as `code` with
    /// `message` and reads as absent, so one bad member fails the body without hiding the others' errors.
    private mutating func checked<Source, Value>(
        _ field: Field<Source>, _ key: String, _ code: String, _ message: @autoclosure () -> String,
        _ convert: (Source) -> Value?
    ) -> Field<Value> {
        switch field {
        case .absent: return .absent
        case .null: return .null
        case .value(let source):
            guard let value = convert(source) else {
                fail(key, code, message())
                return .absent
            }
            return .value(value)
        }
    }

    /// A string field; `""` is a value here. Wrong types are `invalid_type`.
    mutating func string(_ key: String) -> Field<String> {
        checked(raw(key), key, "invalid_type", "\(key) must be a string") { $0.stringValue }
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
        checked(string(key), key, "required", "\(key) must not be empty") { $0.isEmpty ? nil : $0 }
    }

    mutating func bool(_ key: String) -> Field<Bool> {
        checked(raw(key), key, "invalid_type", "\(key) must be true or false") { $0.boolValue }
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>? = nil) -> Field<Double> {
        let number = checked(raw(key), key, "invalid_type", "\(key) must be a number") { $0.doubleValue }
        guard let range else { return number }
        return checked(
            number, key, "out_of_range",
            "\(key) must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))"
        ) { range.contains($0) ? $0 : nil }
    }

    /// A JSON integer in the 32-bit range.
    mutating func integer(_ key: String) -> Field<Int> {
        let whole = checked(raw(key), key, "invalid_type", "\(key) must be an integer") { value in
            value.doubleValue.flatMap { $0.rounded() == $0 ? $0 : nil }
        }
        return checked(whole, key, "out_of_range", "\(key) is out of the 32-bit integer range") {
            $0 >= Double(Int32.min) && $0 <= Double(Int32.max) ? Int($0) : nil
        }
    }

    /// An RFC 3339 timestamp, stored as milliseconds.
    mutating func timestamp(_ key: String) -> Field<Int64> {
        checked(string(key), key, "invalid_format", "\(key) must be an RFC 3339 date-time with an offset") {
            RFC3339.milliseconds(from: $0)
        }
    }

    /// A canonical UUID reference, lowercased; `""` is `invalid_uuid`.
    mutating func uuid(_ key: String) -> Field<String> {
        checked(string(key), key, "invalid_uuid", "\(key) must be a canonical UUID") {
            UUIDText.isCanonical($0) ? $0.lowercased() : nil
        }
    }

    /// One of `allowed`; anything else is `invalid_value`.
    mutating func enumeration(_ key: String, allowed: [String]) -> Field<String> {
        checked(string(key), key, "invalid_value", "\(key) must be one of \(allowed.joined(separator: ", "))") {
            allowed.contains($0) ? $0 : nil
        }
    }

    mutating func stringArray(_ key: String) -> Field<[String]> {
        checked(raw(key), key, "invalid_type", "\(key) must be an array of strings") { value in
            guard let elements = value.arrayValue else { return nil }
            let strings = elements.compactMap(\.stringValue)
            return strings.count == elements.count ? strings : nil
        }
    }

    /// The `properties` object: each entry `{"type": <one of the 8>, "value": <any JSON>}` (api-v1 §4.5); with
    /// `removals`, an entry may also be `null` (`properties_patch`, api-v1 §3.5a: remove that key).
    mutating func properties(_ key: String = "properties", removals: Bool = false) -> Field<[String: JSONValue]> {
        let object = checked(raw(key), key, "invalid_type", "\(key) must be an object") { $0.objectValue }
        guard case .value(let entries) = object else { return object }
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
        return valid ? object : .absent
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number ? String(Int(number)) : String(number)
    }
}
