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

    /// Index of the first event-type column in a `pageSQL` row.
    static let typeColumn = 19

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

    /// One event object, members in the byte order of their names (the shared encoder sorts keys).
    static func write(_ row: any StorageRow, types: inout EmbeddedTypes, into text: inout [UInt8]) throws {
        text.append(contentsOf: #"{"created_at":""#.utf8)
        RFC3339.write(milliseconds: row.int64(17), into: &text)
        text.append(UInt8(ascii: "\""))
        if !row.isNull(6) {
            text.append(contentsOf: #","end_date":""#.utf8)
            RFC3339.write(milliseconds: row.int64(6), into: &text)
            text.append(UInt8(ascii: "\""))
        }
        if let type = try types.json(row) {
            text.append(contentsOf: #","event_type":"#.utf8)
            text.append(contentsOf: type)
        }
        string("event_type_id", 2, row, &text)
        string("external_id", 8, row, &text)
        string("geofence_id", 10, row, &text)
        string("healthkit_category", 15, row, &text)
        string("healthkit_sample_id", 14, row, &text)
        string("id", 0, row, &text)
        text.append(contentsOf: (row.bool(5) ? #","is_all_day":true"# : #","is_all_day":false"#).utf8)
        try number("location_latitude", 11, row, &text)
        try number("location_longitude", 12, row, &text)
        string("location_name", 13, row, &text)
        string("notes", 4, row, &text)
        string("original_title", 9, row, &text)
        try properties(row, &text)
        let source = row.withText(7) { EventSourceType(lenient: String(decoding: $0, as: UTF8.self)) }
        text.append(contentsOf: #","source_type":""#.utf8)
        text.append(contentsOf: source.rawValue.utf8)
        text.append(contentsOf: #"","timestamp":""#.utf8)
        RFC3339.write(milliseconds: row.int64(3), into: &text)
        text.append(contentsOf: #"","updated_at":""#.utf8)
        RFC3339.write(milliseconds: row.int64(18), into: &text)
        text.append(UInt8(ascii: "\""))
        string("user_id", 1, row, &text)
        text.append(UInt8(ascii: "}"))
    }

    /// `,"name":"<escaped text>"`, or nothing for NULL.
    private static func string(_ name: String, _ column: Int, _ row: any StorageRow, _ text: inout [UInt8]) {
        guard !row.isNull(column) else { return }
        text.append(contentsOf: ",\"\(name)\":".utf8)
        row.withText(column) { JSONText.writeString(bytes: $0, into: &text) }
    }

    /// Rare members go through the shared encoder, so their spelling is the Codable one exactly.
    private static func number(_ name: String, _ column: Int, _ row: any StorageRow, _ text: inout [UInt8]) throws {
        guard !row.isNull(column) else { return }
        text.append(contentsOf: ",\"\(name)\":".utf8)
        text.append(contentsOf: try JSONCoding.encode(row.double(column)))
    }

    /// `properties` only when there are any, as `APIEvent` encodes them (read leniently, like `Rows.event`).
    private static func properties(_ row: any StorageRow, _ text: inout [UInt8]) throws {
        let empty = row.withText(16) { $0.count <= 2 }  // "{}" — nearly every event
        if empty { return }
        let properties = Rows.properties(try row.decode(String.self, atIndex: 16))
        if properties.isEmpty { return }
        text.append(contentsOf: #","properties":"#.utf8)
        text.append(contentsOf: try JSONCoding.encode(properties))
    }
}

extension String {
    /// "a, b" → "p.a, p.b", for column lists used in a join.
    fileprivate func qualified(_ prefix: String) -> String {
        split(separator: ",").map { "\(prefix).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }
            .joined(separator: ", ")
    }
}
