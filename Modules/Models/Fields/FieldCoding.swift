import Foundation

/// How strictly a value's fields are read from JSON.
public enum FieldReading: Sendable {
    /// A file a user hands in: required fields present, ids UUIDs, choices known.
    case userFile
    /// A request body: required fields present, the rest lenient.
    case request
    /// Server data: anything absent reads as its default, nothing is refused.
    case serverData
}

extension EntityFields {
    /// Reads the fields from an entity's container (the entity's own members share it through `FieldKey`).
    init(from container: KeyedDecodingContainer<FieldKey>, reading: FieldReading) throws {
        self.init()
        for field in Self.fields {
            let key = FieldKey(field.key)
            guard container.contains(key), try !container.decodeNil(forKey: key) else {
                let required =
                    switch reading {
                    case .userFile: field.presence == .required
                    case .request: field.presence.isRequiredOnCreate
                    case .serverData: false
                    }
                if required {
                    throw DecodingError.keyNotFound(
                        key,
                        DecodingError.Context(
                            codingPath: container.codingPath, debugDescription: "\(field.key) is required"))
                }
                continue
            }
            self[field] = try field.decode(from: container, forKey: key, reading: reading)
        }
    }

    /// Writes the fields into an entity's container: nil fields and empty lists are left out; `creating` leaves out
    /// the fields a create does not carry.
    func encode(to container: inout KeyedEncodingContainer<FieldKey>, creating: Bool = false) throws {
        for field in Self.fields where !creating || field.onCreate {
            switch self[field] {
            case nil, .strings([])?: continue
            case let value?: try value.encode(to: &container, forKey: FieldKey(field.key))
            }
        }
    }
}

extension EntityFields {
    /// Reads server data from a parsed object as `init(from:reading: .serverData)` reads it from a decoder; nil where
    /// that would throw (a member of the wrong type).
    init?(serverMembers members: [String: JSONValue]) {
        self.init()
        for field in Self.fields {
            guard let member = members[field.key], member != .null else { continue }
            switch (field.kind, member) {
            case (.text, .string(let text)), (.id, .string(let text)): self[field] = .text(text)
            case (.choice, _): self[field] = .text(member.stringValue ?? "")
            case (.number, .number(let number)): self[field] = .number(number)
            case (.integer, .number):
                guard let integer = member.intValue else { return nil }
                self[field] = .integer(integer)
            case (.bool, .bool(let flag)): self[field] = .bool(flag)
            case (.strings, .array(let elements)):
                let strings = elements.compactMap(\.stringValue)
                guard strings.count == elements.count else { return nil }
                self[field] = .strings(strings)
            case (.json, _): self[field] = .json(member)
            default: return nil
            }
        }
    }
}

extension EntityField {
    /// A present, non-null member.
    func decode(
        from container: KeyedDecodingContainer<FieldKey>, forKey key: FieldKey, reading: FieldReading
    ) throws -> FieldValue {
        switch kind {
        case .text:
            return .text(try container.decode(String.self, forKey: key))
        case .id:
            return .text(
                reading == .userFile
                    ? try container.decodeId(forKey: key) : try container.decode(String.self, forKey: key))
        case .number:
            return .number(try container.decode(Double.self, forKey: key))
        case .integer:
            return .integer(try container.decode(Int.self, forKey: key))
        case .bool:
            return .bool(try container.decode(Bool.self, forKey: key))
        case .choice(let known):
            guard reading == .userFile else { return .text((try? container.decode(String.self, forKey: key)) ?? "") }
            let text = try container.decode(String.self, forKey: key)
            guard known.contains(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "not one of \(known.joined(separator: ", "))")
            }
            return .text(text)
        case .strings:
            return .strings(try container.decode([String].self, forKey: key))
        case .json:
            return .json(try container.decode(JSONValue.self, forKey: key))
        }
    }
}

extension FieldValue {
    func encode(to container: inout KeyedEncodingContainer<FieldKey>, forKey key: FieldKey) throws {
        switch self {
        case .text(let text): try container.encode(text, forKey: key)
        case .number(let number): try container.encode(number, forKey: key)
        case .integer(let integer): try container.encode(integer, forKey: key)
        case .bool(let flag): try container.encode(flag, forKey: key)
        case .strings(let strings): try container.encode(strings, forKey: key)
        case .json(let value): try container.encode(value, forKey: key)
        }
    }
}
