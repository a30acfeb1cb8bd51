import Foundation
import GRDB
import Models
import Protocols

/// A local entity and its table: the columns in a fixed order, decoded and bound by index.
///
/// One conformance per entity keeps SQL out of the generic store code and lets every statement be prepared
/// once and cached by the connection.
protocol StoredEntity: LocalEntity {
    /// Column names; `id` first.
    static var columns: [String] { get }
    static var statements: EntityStatements { get }
    /// Reads the current row of a statement selecting `columns`.
    init(_ row: RawStatement)
    /// Binds every column, in `columns` order.
    func bind(to statement: inout RawStatement)
}

extension StoredEntity {
    static var table: String { entityType.rawValue }
}

/// The SQL of one entity table, built once per type (statements are then cached per connection by GRDB).
struct EntityStatements: Sendable {
    let select: String
    let find: String
    /// Insert, or overwrite every column of the existing row: one statement, touching only changed index entries.
    let write: String
    /// Insert only: a taken id is a constraint error.
    let insert: String
    /// Sets `sync_status` (the first argument) of the row `id` (the second).
    let setSyncStatus: String

    init(table: String, columns: [String]) {
        let columnList = columns.joined(separator: ", ")
        select = "SELECT \(columnList) FROM \(table)"
        find = "\(select) WHERE id = ?"
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        insert = "INSERT INTO \(table) (\(columnList)) VALUES (\(placeholders))"
        write = "\(insert) ON CONFLICT(id) DO UPDATE SET \(updates)"
        setSyncStatus = "UPDATE \(table) SET sync_status = ? WHERE id = ?"
    }
}

/// Stored encodings shared by the rows.
enum Column {
    static func milliseconds(_ date: Date) -> Int64 { date.millisecondsSince1970 }
    static func milliseconds(_ date: Date?) -> Int64? { date?.millisecondsSince1970 }
    static func date(_ row: Row, _ index: Int) throws -> Date {
        Date(millisecondsSince1970: try row.decode(Int64.self, atIndex: index))
    }
    static func optionalDate(_ row: Row, _ index: Int) throws -> Date? {
        try row.decode(Int64?.self, atIndex: index).map(Date.init(millisecondsSince1970:))
    }
    static func bool(_ row: Row, _ index: Int) throws -> Bool { try row.decode(Int64.self, atIndex: index) != 0 }

    static func json(_ strings: [String]) -> String { JSONColumn.text(strings) }
    static func stringSet(_ row: Row, _ index: Int) throws -> Set<String> {
        Set(JSONColumn.strings(try row.decode(String.self, atIndex: index)))
    }
}

extension Event: StoredEntity {
    static let statements = EntityStatements(table: entityType.rawValue, columns: columns)
    /// The optional fields' columns come last, named by their keys (`EventDetails.fields`).
    static let columns =
        ["id", "event_type_id", "timestamp", "notes", "is_all_day", "source_type", "properties", "sync_status"]
        + EventDetails.keys
    private static let firstDetailColumn: Int32 = 8

    init(_ row: RawStatement) {
        var details = EventDetails()
        for (offset, field) in EventDetails.fields.enumerated() {
            let column = Self.firstDetailColumn + Int32(offset)
            guard !row.isNull(column) else { continue }
            switch field.kind {
            case .text, .id: details[field] = .text(row.string(column))
            case .time: details[field] = .time(row.date(column))
            case .coordinate: details[field] = .number(row.double(column))
            }
        }
        self.init(
            id: row.string(0),
            eventTypeId: row.string(1),
            timestamp: row.date(2),
            notes: row.optionalString(3),
            isAllDay: row.bool(4),
            sourceType: EventSourceType(lenient: row.string(5)),
            details: details,
            properties: JSONColumn.properties(row.string(6)),
            syncStatus: SyncStatus(lenient: row.string(7))
        )
    }

    func bind(to statement: inout RawStatement) {
        statement.bind(id)
        statement.bind(eventTypeId)
        statement.bind(timestamp)
        statement.bind(notes)
        statement.bind(isAllDay)
        statement.bind(sourceType.rawValue)
        statement.bind(JSONColumn.text(properties))
        statement.bind(syncStatus.rawValue)
        for field in EventDetails.fields {
            switch details[field] {
            case .text(let text)?: statement.bind(text)
            case .number(let number)?: statement.bind(number)
            case .time(let date)?: statement.bind(date)
            case nil: statement.bind(nil as String?)
            }
        }
    }
}

/// JSON held in text columns, written canonically; text that does not decode reads as empty (sync-engine §1.4).
enum JSONColumn {
    static func text(_ properties: [String: PropertyValue]) -> String {
        properties.isEmpty ? "{}" : JSONText.string(.object(properties.mapValues(\.json)))
    }

    static func properties(_ text: String) -> [String: PropertyValue] {
        guard text != "{}", let json = try? JSONText.parse(text) else { return [:] }
        return PropertyValue.map(from: json) ?? [:]
    }

    static func text(_ strings: [String]) -> String { JSONText.string(.array(strings.map(JSONValue.string))) }

    static func strings(_ text: String) -> [String] {
        ((try? JSONText.parse(text))?.arrayValue ?? []).compactMap(\.stringValue)
    }

    static func text(_ value: JSONValue?) -> String? { value.map(JSONText.string) }

    static func value(_ text: String?) -> JSONValue? {
        guard let text, let value = try? JSONText.parse(text), value != .null else { return nil }
        return value
    }
}

extension EventType: StoredEntity {
    static let statements = EntityStatements(table: entityType.rawValue, columns: columns)
}

extension Geofence: StoredEntity {
    static let statements = EntityStatements(table: entityType.rawValue, columns: columns)
}

/// A device record's row: `id`, the fields in table order, `created_at`, `sync_status`.
extension StoredEntity where Self: DeviceRecord {
    static var columns: [String] { ["id"] + Fields.keys + ["created_at", "sync_status"] }

    init(_ row: RawStatement) {
        let afterFields = Int32(1 + Fields.fields.count)
        self.init(
            id: row.string(0), fields: Fields(row, from: 1), createdAt: row.date(afterFields),
            syncStatus: SyncStatus(lenient: row.string(afterFields + 1)))
    }

    func bind(to statement: inout RawStatement) {
        statement.bind(id)
        fields.bind(to: &statement)
        statement.bind(createdAt)
        statement.bind(syncStatus.rawValue)
    }
}

extension PropertyDefinition: StoredEntity {
    static let statements = EntityStatements(table: entityType.rawValue, columns: columns)
    static let columns =
        ["id", "event_type_id"] + PropertyDefinitionFields.keys + ["created_at", "updated_at", "sync_status"]
    private static let afterFields = Int32(2 + PropertyDefinitionFields.fields.count)

    init(_ row: RawStatement) {
        self.init(
            id: row.string(0), eventTypeId: row.string(1), fields: PropertyDefinitionFields(row, from: 2),
            createdAt: row.date(Self.afterFields), updatedAt: row.date(Self.afterFields + 1),
            syncStatus: SyncStatus(lenient: row.string(Self.afterFields + 2)))
    }

    func bind(to statement: inout RawStatement) {
        statement.bind(id)
        statement.bind(eventTypeId)
        fields.bind(to: &statement)
        statement.bind(createdAt)
        statement.bind(updatedAt)
        statement.bind(syncStatus.rawValue)
    }
}

extension EntityFields {
    /// Reads the fields from the columns that start at `first`, in table order (`fields`' keys are the columns).
    init(_ row: RawStatement, from first: Int32) {
        self.init()
        for (offset, field) in Self.fields.enumerated() {
            let column = first + Int32(offset)
            guard !row.isNull(column) else { continue }
            switch field.kind {
            case .text, .id, .choice: self[field] = .text(row.string(column))
            case .number: self[field] = .number(row.double(column))
            case .integer: self[field] = .integer(row.int(column))
            case .bool: self[field] = .bool(row.bool(column))
            case .strings: self[field] = .strings(JSONColumn.strings(row.string(column)))
            case .json: self[field] = JSONColumn.value(row.string(column)).map(FieldValue.json)
            }
        }
    }

    /// Binds every field, in table order: lists and JSON as JSON text, nil as NULL.
    func bind(to statement: inout RawStatement) {
        for field in Self.fields {
            switch self[field] {
            case .text(let text)?: statement.bind(text)
            case .number(let number)?: statement.bind(number)
            case .integer(let integer)?: statement.bind(integer)
            case .bool(let flag)?: statement.bind(flag)
            case .strings(let strings)?: statement.bind(JSONColumn.text(strings))
            case .json(let value)?: statement.bind(JSONColumn.text(value))
            case nil: statement.bind(nil as String?)
            }
        }
    }
}
