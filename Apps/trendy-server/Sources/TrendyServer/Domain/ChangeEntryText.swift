import Foundation
import Models

/// One change row as the JSON of a `ChangeEntry` (api-v1 §6.1), written from its stored columns: the feed page and
/// the change stream send the same bytes, and neither decodes `data` or copies a column.
enum ChangeEntryText {
    /// The columns `write` reads, in order; append `WHERE …` to select rows.
    static let select =
        "SELECT id, entity_type, operation, entity_id, user_id, data, deleted_at, created_at FROM changes"

    /// The row's id.
    static func id(_ row: any StorageRow) -> Int64 { row.int64(0) }

    /// The row's `created_at` in milliseconds.
    static func createdAt(_ row: any StorageRow) -> Int64 { row.int64(7) }

    /// Appends the entry as one JSON object with its members in name order.
    static func write(_ row: any StorageRow, into text: inout [UInt8]) {
        text.append(contentsOf: #"{"created_at":""#.utf8)
        RFC3339.write(milliseconds: row.int64(7), into: &text)
        text.append(contentsOf: #"","data":"#.utf8)
        if row.isNull(5) {
            text.append(contentsOf: "null".utf8)
        } else {
            row.withText(5) { text.append(contentsOf: $0) }
        }
        if !row.isNull(6) {
            text.append(contentsOf: #","deleted_at":""#.utf8)
            RFC3339.write(milliseconds: row.int64(6), into: &text)
            text.append(UInt8(ascii: "\""))
        }
        appendMember("entity_id", 3, of: row, to: &text)
        appendMember("entity_type", 1, of: row, to: &text)
        text.append(contentsOf: #","id":\#(row.int64(0))"#.utf8)
        appendMember("operation", 2, of: row, to: &text)
        appendMember("user_id", 4, of: row, to: &text)
        text.append(UInt8(ascii: "}"))
    }

    /// Appends `,"name":"<escaped text>"`.
    private static func appendMember(_ name: String, _ column: Int, of row: any StorageRow, to text: inout [UInt8]) {
        text.append(contentsOf: ",\"\(name)\":".utf8)
        row.withText(column) { JSONText.writeString(bytes: $0, into: &text) }
    }
}
