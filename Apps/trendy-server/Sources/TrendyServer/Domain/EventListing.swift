import Foundation
import Models

/// `GET /api/v1/events` pages written straight from the rows, like the change feed: a bootstrap reads every event of
/// an account through here, and building `APIEvent` values only to encode them again cost half the server's time.
/// The output is the Codable encoding of the same rows (sorted keys, nil members omitted); `EventListingTests`
/// holds the two to the same JSON.
enum EventListing {
    /// The page's events with their type's columns (NULL when the type is gone), newest first. The offset is walked
    /// in the covering index (user_id, timestamp, id) alone; only the page's rows are read whole.
    static let pageSQL = """
        SELECT \(Rows.eventColumns.qualified("e")), \(Rows.eventTypeColumns.qualified("t"))
        FROM events e LEFT JOIN event_types t ON t.id = e.event_type_id AND t.user_id = e.user_id
        WHERE e.id IN (SELECT id FROM events WHERE user_id = ? ORDER BY timestamp DESC, id DESC LIMIT ? OFFSET ?)
        ORDER BY e.timestamp DESC, e.id DESC
        """

    /// A keyset page (api-v1 §5.3.1): the events strictly after the token's row, one more than asked so that the page
    /// knows whether another follows. Every page walks the index (user_id, timestamp DESC, id DESC) from its token, so
    /// its cost does not depend on its depth.
    static func keysetSQL(after: Bool) -> String {
        // A range on the index's `timestamp` first, then the id among equal times: with the whole condition one OR,
        // SQLite bounded only `user_id` and walked the account's entries from its newest to the token.
        let position = after ? " AND timestamp <= ? AND (timestamp < ? OR id < ?)" : ""
        return """
            SELECT \(Rows.eventColumns.qualified("e")), \(Rows.eventTypeColumns.qualified("t"))
            FROM events e LEFT JOIN event_types t ON t.id = e.event_type_id AND t.user_id = e.user_id
            WHERE e.id IN (SELECT id FROM events WHERE user_id = ?\(position) ORDER BY timestamp DESC, id DESC LIMIT ?)
            ORDER BY e.timestamp DESC, e.id DESC
            """
    }

    /// `pageBytes` ends the page early, before the event that would pass it (never before the first).
    static func keysetPage(
        user: String, limit: Int, after: EventsPageToken?, pageBytes: Int = ServerConfiguration.defaultMaxPageBytes,
        _ db: any StorageTransaction
    ) throws -> (body: [UInt8], next: EventsPageToken?) {
        var arguments: [any SQLValueConvertible] = [user]
        if let after { arguments += [after.timestamp, after.timestamp, after.id] }
        arguments.append(limit + 1)
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(limit * 640 + 2)
        var types = EmbeddedTypes()
        var written = 0
        var last: EventsPageToken?
        var more = false
        try db.forEachRow(keysetSQL(after: after != nil), arguments) { row in
            if written == limit {
                more = true
                return false
            }
            let mark = text.count
            if written > 0 { text.append(UInt8(ascii: ",")) }
            try write(row, types: &types, into: &text)
            if written > 0 && text.count + 1 > pageBytes {
                text.removeSubrange(mark...)
                more = true
                return false
            }
            written += 1
            last = EventsPageToken(
                timestamp: row.int64(3), id: row.withText(0) { String(decoding: $0, as: UTF8.self) })
            return true
        }
        text.append(UInt8(ascii: "]"))
        return (text, more ? last : nil)
    }

    /// Index of the first event-type column in a `pageSQL` row.
    static let typeColumn = Rows.eventColumnNames.count

    static func page(user: String, limit: Int, offset: Int, _ db: any StorageTransaction) throws -> [UInt8] {
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(limit * 640 + 2)
        var types = EmbeddedTypes()
        var first = true
        try db.forEachRow(pageSQL, [user, limit, offset]) { row in
            if !first { text.append(UInt8(ascii: ",")) }
            first = false
            try write(row, types: &types, into: &text)
            return true
        }
        text.append(UInt8(ascii: "]"))
        return text
    }

    /// The encoded `event_type` of each type seen in the page, encoded once.
    struct EmbeddedTypes {
        private var encoded: [String: [UInt8]] = [:]

        mutating func json(_ row: any StorageRow) throws -> [UInt8]? {
            if row.isNull(EventListing.typeColumn) { return nil }
            let id = row.withText(EventListing.typeColumn) { String(decoding: $0, as: UTF8.self) }
            if let known = encoded[id] { return known }
            let json = Array(try JSONCoding.encode(try Rows.eventType(row, from: EventListing.typeColumn)))
            encoded[id] = json
            return json
        }
    }

    /// What one member of an event object is written from.
    private enum Member {
        case eventType
        /// `true` or `false`.
        case bool(column: Int)
        /// The known source type, or `manual` (as `EventSourceType(lenient:)` reads it).
        case sourceType(column: Int)
        /// The properties object, omitted when empty.
        case properties(column: Int)
        /// Text, omitted when NULL.
        case text(column: Int)
        /// Unix milliseconds written as RFC 3339, omitted when NULL.
        case time(column: Int)
        /// A number, omitted when NULL.
        case number(column: Int)
    }

    /// The members in the byte order of their names (the shared encoder sorts keys), each with its `"name":` bytes.
    private static let members: [(name: [UInt8], member: Member)] = {
        var members: [(String, Member)] = [
            ("created_at", .time(column: 8)), ("event_type", .eventType), ("event_type_id", .text(column: 2)),
            ("id", .text(column: 0)), ("is_all_day", .bool(column: 5)), ("notes", .text(column: 4)),
            ("properties", .properties(column: 7)), ("source_type", .sourceType(column: 6)),
            ("timestamp", .time(column: 3)),
            ("updated_at", .time(column: 9)), ("user_id", .text(column: 1)),
        ]
        for (offset, field) in EventDetails.fields.enumerated() {
            let column = Rows.firstDetailColumn + offset
            switch field.kind {
            case .text, .id: members.append((field.key, .text(column: column)))
            case .time: members.append((field.key, .time(column: column)))
            case .coordinate: members.append((field.key, .number(column: column)))
            }
        }
        return members.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            .map { (Array("\"\($0.0)\":".utf8), $0.1) }
    }()

    /// One event object, as `APIEvent`'s Codable encoding writes the same row.
    static func write(_ row: any StorageRow, types: inout EmbeddedTypes, into text: inout [UInt8]) throws {
        text.append(UInt8(ascii: "{"))
        var separator: UInt8? = nil
        func open(_ name: [UInt8]) {
            if let separator { text.append(separator) }
            separator = UInt8(ascii: ",")
            text.append(contentsOf: name)
        }
        for (name, member) in members {
            switch member {
            case .text(let column):
                guard !row.isNull(column) else { continue }
                open(name)
                row.withText(column) { JSONText.writeString(bytes: $0, into: &text) }
            case .time(let column):
                guard !row.isNull(column) else { continue }
                open(name)
                text.append(UInt8(ascii: "\""))
                RFC3339.write(milliseconds: row.int64(column), into: &text)
                text.append(UInt8(ascii: "\""))
            case .number(let column):
                guard !row.isNull(column) else { continue }
                open(name)
                // Through the shared encoder, so that the spelling is the Codable one exactly.
                text.append(contentsOf: try JSONCoding.encode(row.double(column)))
            case .eventType:
                guard let type = try types.json(row) else { continue }
                open(name)
                text.append(contentsOf: type)
            case .bool(let column):
                open(name)
                text.append(contentsOf: (row.bool(column) ? "true" : "false").utf8)
            case .properties(let column):
                guard let properties = try properties(row, column) else { continue }
                open(name)
                text.append(contentsOf: properties)
            case .sourceType(let column):
                open(name)
                let source = row.withText(column) { EventSourceType(lenient: String(decoding: $0, as: UTF8.self)) }
                // Raw values are plain ASCII words: nothing to escape.
                text.append(UInt8(ascii: "\""))
                text.append(contentsOf: source.rawValue.utf8)
                text.append(UInt8(ascii: "\""))
            }
        }
        text.append(UInt8(ascii: "}"))
    }

    /// `properties` only when there are any, as `APIEvent` encodes them (read leniently, like `Rows.event`).
    private static func properties(_ row: any StorageRow, _ column: Int) throws -> Data? {
        let empty = row.withText(column) { $0.count <= 2 }  // "{}" — nearly every event
        if empty { return nil }
        let properties = Rows.properties(try row.decode(String.self, atIndex: column))
        if properties.isEmpty { return nil }
        return try JSONCoding.encode(properties)
    }
}

extension String {
    /// "a, b" → "p.a, p.b", for column lists used in a join.
    fileprivate func qualified(_ prefix: String) -> String {
        split(separator: ",").map { "\(prefix).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }
            .joined(separator: ", ")
    }
}
