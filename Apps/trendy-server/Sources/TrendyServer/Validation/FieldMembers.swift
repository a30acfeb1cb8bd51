import Models

/// A request body's members for one field table, each read by its field's kind: absent, `null`, or a value (api-v1
/// api-v1 §3.5). A number out of its range, a choice outside its values or a wrong type fails the body.
///
/// What is particular to one field (a `Dialect` deviation, a reference check, a rule across fields) stays with its
/// entity; everything else — which fields exist, how each is read, what a create requires, how a PUT merges — is
/// the table's.
struct FieldMembers<Fields: EntityFields> {
    private(set) var members: [String: Field<FieldValue>] = [:]

    /// Reads every field of the table from `body`; a required text field may not be `""` (on a PUT,
    /// `Dialect.refusesEmptyRequiredText`).
    init(_ body: inout BodyReader, creating: Bool, dialect: Dialect) {
        for field in Fields.fields {
            let member = body.member(field)
            if case .value(.text("")) = member, field.presence.isRequiredOnCreate {
                // A create reports it as missing, below.
                if !creating && dialect.refusesEmptyRequiredText {
                    body.fail(field.key, "required", "\(field.key) must not be empty")
                }
                members[field.key] = .absent
                continue
            }
            members[field.key] = member
        }
        guard creating else { return }
        for field in Fields.fields where field.presence.isRequiredOnCreate {
            if members[field.key]?.value == nil, !body.errors.contains(where: { $0.field == field.key }) {
                body.fail(field.key, "required", "\(field.key) is required")
            }
        }
    }

    subscript(key: String) -> Field<FieldValue> {
        get { members[key] ?? .absent }
        set { members[key] = newValue }
    }

    /// The fields a create makes: each value given, the default for the rest.
    var created: Fields {
        var fields = Fields()
        for field in Fields.fields { if let value = self[field.key].value { fields[field] = value } }
        return fields
    }

    /// `stored` with the members merged: a value sets, `null` clears a clearable field
    /// (`Dialect.nullClearsObjectFields`), absence keeps.
    func merged(into stored: Fields, dialect: Dialect) -> Fields {
        var fields = stored
        for field in Fields.fields {
            switch self[field.key] {
            case .absent: continue
            case .null: if field.clearable && dialect.nullClearsObjectFields { fields[field] = nil }
            case .value(let value): fields[field] = value
            }
        }
        return fields
    }
}

extension BodyReader {
    /// One member read by its field's kind.
    mutating func member<Fields>(_ field: EntityField<Fields>) -> Field<FieldValue> {
        switch field.kind {
        case .text: string(field.key).map(FieldValue.text)
        case .id: uuid(field.key).map(FieldValue.text)
        case .number(let range): number(field.key, in: range).map(FieldValue.number)
        case .integer: integer(field.key).map(FieldValue.integer)
        case .bool: bool(field.key).map(FieldValue.bool)
        case .choice(let allowed): enumeration(field.key, allowed: allowed).map(FieldValue.text)
        case .strings: stringArray(field.key).map(FieldValue.strings)
        case .json: raw(field.key).map(FieldValue.json)
        }
    }
}

extension Field {
    func map<Other>(_ transform: (Value) -> Other) -> Field<Other> {
        switch self {
        case .absent: .absent
        case .null: .null
        case .value(let value): .value(transform(value))
        }
    }
}
