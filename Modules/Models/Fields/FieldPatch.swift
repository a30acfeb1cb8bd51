import Foundation

/// The body of a partial update (api-v1 §3.5): the fields it sets, and the clearable fields it clears with `null`.
/// A field it does not name stays as it is on the server.
///
/// `UpdateEventTypeRequest`, `UpdateGeofenceRequest` and `UpdatePropertyDefinitionRequest` are patches of their
/// tables; `patch.name` reads and sets one field (nil when the patch does not set it).
@dynamicMemberLookup
public struct FieldPatch<Fields: EntityFields>: Sendable, Hashable {
    /// The values set, by key.
    public var values: [String: FieldValue]
    /// Keys sent as `null`: clearable fields only.
    public var cleared: Set<String>

    /// A patch of these values and cleared keys.
    public init(values: [String: FieldValue] = [:], cleared: Set<String> = []) {
        self.values = values
        self.cleared = cleared
    }

    /// A patch built in place: `UpdateGeofenceRequest { $0.radius = 200 }`.
    public init(_ build: (inout FieldPatch) -> Void) {
        self.init()
        build(&self)
    }

    /// Every field of `fields`, each unset clearable field as cleared: the state a patch is taken from (sync-engine
    /// R1).
    public init(everyFieldOf fields: Fields) {
        self.init()
        for field in Fields.fields {
            if let value = fields[field] {
                values[field.key] = value
            } else if field.clearable {
                cleared.insert(field.key)
            }
        }
    }

    /// The value the patch sets for `field`; nil when it does not set it (or clears it: see `cleared`).
    public subscript(field: EntityField<Fields>) -> FieldValue? {
        get { values[field.key] }
        set { values[field.key] = newValue }
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<Fields, Value>) -> Value? {
        get { get(path) }
        set { set(path, newValue) }
    }

    /// An optional field: nil when the patch does not set it (a clear is in `cleared`).
    public subscript<Value>(dynamicMember path: WritableKeyPath<Fields, Value?>) -> Value? {
        get { get(path) ?? nil }
        set { set(path, newValue) }
    }

    /// The value the patch sets at `path`, read through a scratch value of the table.
    private func get<Value>(_ path: WritableKeyPath<Fields, Value>) -> Value? {
        guard let field = Fields.field(at: path), let value = values[field.key] else { return nil }
        var scratch = Fields()
        scratch[field] = value
        return scratch[keyPath: path]
    }

    private mutating func set<Value>(_ path: WritableKeyPath<Fields, Value>, _ newValue: Value?) {
        guard let field = Fields.field(at: path) else { return }
        guard let newValue else {
            values[field.key] = nil
            return
        }
        var scratch = Fields()
        scratch[keyPath: path] = newValue
        values[field.key] = scratch[field]
    }

    /// `fields` with this patch applied: each value set, each cleared field cleared.
    public func applied(to fields: Fields) -> Fields {
        var patched = fields
        for field in Fields.fields {
            if let value = values[field.key] {
                patched[field] = value
            } else if cleared.contains(field.key), field.clearable {
                patched[field] = nil
            }
        }
        return patched
    }

    /// True when it sets and clears nothing.
    public var isEmpty: Bool { values.isEmpty && cleared.isEmpty }
}

extension FieldPatch: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init()
        for field in Fields.fields {
            let key = FieldKey(field.key)
            guard container.contains(key) else { continue }
            if try container.decodeNil(forKey: key) {
                if field.clearable { cleared.insert(field.key) }
            } else {
                values[field.key] = try field.decode(from: container, forKey: key, reading: .request)
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for field in Fields.fields {
            let key = FieldKey(field.key)
            if let value = values[field.key] {
                try value.encode(to: &container, forKey: key)
            } else if cleared.contains(field.key) {
                try container.encodeNil(forKey: key)
            }
        }
    }
}
