import Foundation
import GRDB
import Models
import Protocols

/// A local entity and its table: the columns in a fixed order, decoded and bound by index.
///
/// One conformance per entity keeps SQL out of the generic store code and lets every statement be prepared
/// once and cached by the connection.
protocol StoredEntity: Equatable {
    static var entityType: MutationEntityType { get }
    /// Column names; `id` first.
    static var columns: [String] { get }
    static var statements: EntityStatements { get }
    var id: String { get set }
    var syncStatus: SyncStatus { get set }
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
    let markSynced: String

    init(table: String, columns: [String]) {
        let columnList = columns.joined(separator: ", ")
        select = "SELECT \(columnList) FROM \(table)"
        find = "\(select) WHERE id = ?"
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        insert = "INSERT INTO \(table) (\(columnList)) VALUES (\(placeholders))"
        write = "\(insert) ON CONFLICT(id) DO UPDATE SET \(updates)"
        markSynced = "UPDATE \(table) SET sync_status = 'synced' WHERE id = ?"
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
    static var entityType: MutationEntityType { .event }
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
    static var entityType: MutationEntityType { .eventType }
    static let columns = ["id", "name", "color", "icon", "created_at", "sync_status"]

    init(_ row: RawStatement) {
        self.init(
            id: row.string(0), name: row.string(1), color: row.string(2), icon: row.string(3),
            createdAt: row.date(4), syncStatus: SyncStatus(lenient: row.string(5)))
    }

    func bind(to statement: inout RawStatement) {
        statement.bind(id)
        statement.bind(name)
        statement.bind(color)
        statement.bind(icon)
        statement.bind(createdAt)
        statement.bind(syncStatus.rawValue)
    }
}

extension Geofence: StoredEntity {
    static let statements = EntityStatements(table: entityType.rawValue, columns: columns)
    static var entityType: MutationEntityType { .geofence }
    static let columns = [
        "id", "name", "latitude", "longitude", "radius", "event_type_entry_id", "event_type_exit_id", "is_active",
        "notify_on_entry", "notify_on_exit", "ios_region_identifier", "created_at", "sync_status",
    ]

    init(_ row: RawStatement) {
        self.init(
            id: row.string(0),
            name: row.string(1),
            latitude: row.double(2),
            longitude: row.double(3),
            radius: row.double(4),
            eventTypeEntryId: row.optionalString(5),
            eventTypeExitId: row.optionalString(6),
            isActive: row.bool(7),
            notifyOnEntry: row.bool(8),
            notifyOnExit: row.bool(9),
            iosRegionIdentifier: row.optionalString(10),
            createdAt: row.date(11),
            syncStatus: SyncStatus(lenient: row.string(12))
        )
    }

    func bind(to statement: inout RawStatement) {
        statement.bind(id)
        statement.bind(name)
        statement.bind(latitude)
        statement.bind(longitude)
        statement.bind(radius)
        statement.bind(eventTypeEntryId)
        statement.bind(eventTypeExitId)
        statement.bind(isActive)
        statement.bind(notifyOnEntry)
        statement.bind(notifyOnExit)
        statement.bind(iosRegionIdentifier)
        statement.bind(createdAt)
        statement.bind(syncStatus.rawValue)
    }
}

extension PropertyDefinition: StoredEntity {
    static let statements = EntityStatements(table: entityType.rawValue, columns: columns)
    static var entityType: MutationEntityType { .propertyDefinition }
    static let columns = [
        "id", "event_type_id", "key", "label", "property_type", "options", "default_value", "display_order",
        "created_at", "updated_at", "sync_status",
    ]

    init(_ row: RawStatement) {
        self.init(
            id: row.string(0),
            eventTypeId: row.string(1),
            key: row.string(2),
            label: row.string(3),
            propertyType: PropertyType(lenient: row.string(4)),
            options: JSONColumn.strings(row.string(5)),
            defaultValue: JSONColumn.value(row.optionalString(6)),
            displayOrder: row.int(7),
            createdAt: row.date(8),
            updatedAt: row.date(9),
            syncStatus: SyncStatus(lenient: row.string(10))
        )
    }

    func bind(to statement: inout RawStatement) {
        statement.bind(id)
        statement.bind(eventTypeId)
        statement.bind(key)
        statement.bind(label)
        statement.bind(propertyType.rawValue)
        statement.bind(JSONColumn.text(options))
        statement.bind(JSONColumn.text(defaultValue))
        statement.bind(displayOrder)
        statement.bind(createdAt)
        statement.bind(updatedAt)
        statement.bind(syncStatus.rawValue)
    }
}
