import Models

/// A field table's columns on the server, named by the fields' keys and in table order: read and bound by kind,
/// lists and JSON as canonical JSON text, an empty list as NULL (as the original stores it).
extension EntityFields {
    /// Reads the fields from the columns that start at `first`.
    init(_ row: any StorageRow, from first: Int) throws {
        self.init()
        for (offset, field) in Self.fields.enumerated() {
            let column = first + offset
            guard !row.isNull(column) else { continue }
            switch field.kind {
            case .text, .id, .choice: self[field] = .text(try row.decode(String.self, atIndex: column))
            case .number: self[field] = .number(try row.decode(Double.self, atIndex: column))
            case .integer: self[field] = .integer(try row.decode(Int.self, atIndex: column))
            case .bool: self[field] = .bool(try row.decode(Bool.self, atIndex: column))
            case .strings, .json:
                if let json = try? JSONText.parse(try row.decode(String.self, atIndex: column)) {
                    self[field] = field.value(json: json)
                }
            }
        }
    }

    /// The column values, in table order.
    var columnValues: [any SQLValueConvertible] {
        Self.fields.map { field -> SQLValue in
            switch self[field] {
            case .text(let text)?: .text(text)
            case .number(let number)?: .real(number)
            case .integer(let integer)?: .integer(Int64(integer))
            case .bool(let flag)?: .bool(flag)
            case .strings(let strings)?:
                strings.isEmpty ? .null : .text(JSONText.string(.array(strings.map(JSONValue.string))))
            case .json(let value)?: .text(JSONText.string(value))
            case nil: .null
            }
        }
    }

    /// `key = excluded.key` for every field: an upsert's update of the fields.
    static var upsertAssignments: String { keys.map { "\($0) = excluded.\($0)" }.joined(separator: ", ") }
}
