import Foundation

/// The fields a user edits on one kind of entity, defined once as a table (docs/architecture.md, "One definition per
/// field").
///
/// `EventTypeFields`, `GeofenceFields` and `PropertyDefinitionFields` conform. The entity, its server object and its
/// create request each hold one value and show its members as their own (`@dynamicMemberLookup`); its update request
/// is a `FieldPatch`. Everything that handles the fields one by one — JSON, both stores' columns, the server's body
/// reader and merge, applying a change entry, the in-memory server — walks `fields` instead of naming them.
public protocol EntityFields: Sendable, Hashable {
    /// Every field, in column order.
    static var fields: [EntityField<Self>] { get }
    /// Every field at its default: what reading starts from, and what an absent defaulted field reads as.
    init()
}

/// One value of a field, as every store and every JSON document spells it.
public enum FieldValue: Sendable, Hashable {
    /// Text, and ids.
    case text(String)
    /// A number.
    case number(Double)
    /// A whole number.
    case integer(Int)
    /// A flag.
    case bool(Bool)
    /// A list of strings (a definition's options).
    case strings([String])
    /// Any JSON (a definition's default value).
    case json(JSONValue)

    /// The JSON member.
    public var json: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .number(let number): .number(number)
        case .integer(let integer): .number(Double(integer))
        case .bool(let flag): .bool(flag)
        case .strings(let strings): .array(strings.map(JSONValue.string))
        case .json(let value): value
        }
    }
}

/// What a field holds, and so how it is read from JSON, bound to a column and checked by a server.
public enum FieldKind: Sendable, Hashable {
    /// Free text: a name, a label, a colour.
    case text
    /// A reference to another entity: a UUID, stored lower-case.
    case id
    /// A number within its range (a server refuses one outside it).
    case number(ClosedRange<Double>)
    /// A whole number.
    case integer
    /// A flag.
    case bool
    /// One of these raw values.
    case choice([String])
    /// A list of strings, stored as a JSON array; `null` clears it to `[]`.
    case strings
    /// Any JSON value, stored as JSON text.
    case json
}

/// Whether a field must be given, and what its absence means.
public enum FieldPresence: Sendable, Hashable {
    /// A create must carry it, and so must a user's file.
    case required
    /// A create must carry it; a user's file may leave it to its default.
    case requiredOnCreate
    /// Absent reads as its default (`Fields()`'s value).
    case defaulted
    /// Absent reads as nil.
    case optional

    /// Whether a create body must carry it.
    public var isRequiredOnCreate: Bool { self == .required || self == .requiredOnCreate }
}

/// One field: its key (the JSON member and the column in every store), kind, presence, and how it is read from and
/// written to a value of its table.
public struct EntityField<Fields: EntityFields>: Sendable {
    /// The JSON member and the column name (`event_type_entry_id`).
    public let key: String
    /// What it holds.
    public let kind: FieldKind
    /// Whether a create must carry it, may leave it out, or defaults it.
    public let presence: FieldPresence
    /// Whether an explicit `null` in an update or a change entry clears it (api-v1 §3.5).
    public let clearable: Bool
    /// Whether a create body carries it (`ios_region_identifier` comes from updates only).
    public let onCreate: Bool
    let path: any PartialKeyPath<Fields> & Sendable
    fileprivate let read: @Sendable (Fields) -> FieldValue?
    /// Nil clears: an optional field to nil, any other to its default.
    fileprivate let write: @Sendable (inout Fields, FieldValue?) -> Void

    /// The value a JSON member holds for this field, or nil when it holds none (null, a wrong type, a fraction for an
    /// integer). Ids come back lower-case; a choice outside its values is kept, and reads as the default.
    public func value(json: JSONValue) -> FieldValue? {
        switch (kind, json) {
        case (.text, .string(let text)), (.choice, .string(let text)): .text(text)
        case (.id, .string(let text)): .text(text.lowercased())
        case (.number, .number(let number)): .number(number)
        case (.integer, .number): json.intValue.map(FieldValue.integer)
        case (.bool, .bool(let flag)): .bool(flag)
        case (.strings, .array(let elements)): .strings(elements.compactMap(\.stringValue))
        case (.json, _) where json != .null: .json(json)
        default: nil
        }
    }

    private init<Stored>(
        _ key: String, _ kind: FieldKind, _ presence: FieldPresence, clearable: Bool, onCreate: Bool,
        _ path: any WritableKeyPath<Fields, Stored> & Sendable,
        wrap: @escaping @Sendable (Stored) -> FieldValue?, unwrap: @escaping @Sendable (FieldValue) -> Stored?
    ) {
        self.key = key
        self.kind = kind
        self.presence = presence
        self.clearable = clearable
        self.onCreate = onCreate
        self.path = path
        read = { wrap($0[keyPath: path]) }
        write = { fields, value in
            guard let value else {
                fields[keyPath: path] = Fields()[keyPath: path]
                return
            }
            if let stored = unwrap(value) { fields[keyPath: path] = stored }
        }
    }
}

// MARK: - Building a table

extension EntityField {
    /// Text, required on create unless `presence` says otherwise; never cleared.
    public static func text(
        _ key: String, _ path: any WritableKeyPath<Fields, String> & Sendable, _ presence: FieldPresence = .required
    ) -> Self {
        Self(key, .text, presence, clearable: false, onCreate: true, path, wrap: FieldValue.text, unwrap: \.text)
    }

    /// Optional text; `onCreate: false` for one that only updates set.
    public static func optionalText(
        _ key: String, _ path: any WritableKeyPath<Fields, String?> & Sendable, clearable: Bool, onCreate: Bool = true
    ) -> Self {
        Self(
            key, .text, .optional, clearable: clearable, onCreate: onCreate, path, wrap: { $0.map(FieldValue.text) },
            unwrap: { $0.text.map(Optional.some) })
    }

    /// An optional, clearable reference to another entity.
    public static func reference(_ key: String, _ path: any WritableKeyPath<Fields, String?> & Sendable) -> Self {
        Self(
            key, .id, .optional, clearable: true, onCreate: true, path, wrap: { $0.map(FieldValue.text) },
            unwrap: { $0.text.map { Optional.some($0.lowercased()) } })
    }

    /// A number within `range`, required on create unless `presence` says otherwise.
    public static func number(
        _ key: String, _ path: any WritableKeyPath<Fields, Double> & Sendable, in range: ClosedRange<Double>,
        _ presence: FieldPresence = .required
    ) -> Self {
        Self(
            key, .number(range), presence, clearable: false, onCreate: true, path, wrap: FieldValue.number,
            unwrap: \.number)
    }

    /// A whole number that takes its default when left out.
    public static func integer(_ key: String, _ path: any WritableKeyPath<Fields, Int> & Sendable) -> Self {
        Self(
            key, .integer, .defaulted, clearable: false, onCreate: true, path, wrap: FieldValue.integer,
            unwrap: \.integer)
    }

    /// A flag that takes its default when left out.
    public static func bool(_ key: String, _ path: any WritableKeyPath<Fields, Bool> & Sendable) -> Self {
        Self(key, .bool, .defaulted, clearable: false, onCreate: true, path, wrap: FieldValue.bool, unwrap: \.bool)
    }

    /// One of an enumeration's raw values; one it does not know reads as the default.
    public static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, _ path: any WritableKeyPath<Fields, Choice> & Sendable, _ presence: FieldPresence = .required
    ) -> Self where Choice.RawValue == String {
        Self(
            key, .choice(Choice.allCases.map(\.rawValue)), presence, clearable: false, onCreate: true, path,
            wrap: { .text($0.rawValue) },
            unwrap: { value in value.text.map { Choice(rawValue: $0) ?? Fields()[keyPath: path] } })
    }

    /// A list of strings: absent reads as `[]`, `null` clears it to `[]`.
    public static func strings(_ key: String, _ path: any WritableKeyPath<Fields, [String]> & Sendable) -> Self {
        Self(
            key, .strings, .defaulted, clearable: true, onCreate: true, path, wrap: FieldValue.strings,
            unwrap: \.strings)
    }

    /// Any JSON value, optional and clearable.
    public static func json(_ key: String, _ path: any WritableKeyPath<Fields, JSONValue?> & Sendable) -> Self {
        Self(
            key, .json, .optional, clearable: true, onCreate: true, path, wrap: { $0.map(FieldValue.json) },
            unwrap: { value in value.jsonValue.map(Optional.some) })
    }
}

extension FieldValue {
    fileprivate var text: String? { if case .text(let text) = self { text } else { nil } }
    fileprivate var number: Double? { if case .number(let number) = self { number } else { nil } }
    fileprivate var integer: Int? { if case .integer(let integer) = self { integer } else { nil } }
    fileprivate var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    fileprivate var strings: [String]? { if case .strings(let strings) = self { strings } else { nil } }
    fileprivate var jsonValue: JSONValue? { if case .json(let value) = self { value } else { nil } }
}

// MARK: - Reading a table

extension EntityFields {
    /// One field's value; setting nil clears it, setting a value of another kind changes nothing.
    public subscript(field: EntityField<Self>) -> FieldValue? {
        get { field.read(self) }
        set { field.write(&self, newValue) }
    }

    /// The keys of `fields`, in their order.
    public static var keys: [String] { fields.map(\.key) }

    /// The keys a create body carries.
    public static var createKeys: [String] { fields.filter(\.onCreate).map(\.key) }

    /// The keys an explicit `null` clears (api-v1 §3.5).
    public static var clearableKeys: Set<String> { Set(fields.filter(\.clearable).map(\.key)) }

    /// The field of `key`; nil for a key the table does not have.
    public static func field(_ key: String) -> EntityField<Self>? { fields.first { $0.key == key } }

    static func field(at path: AnyKeyPath) -> EntityField<Self>? {
        fields.first { ($0.path as AnyKeyPath) == path }
    }
}
