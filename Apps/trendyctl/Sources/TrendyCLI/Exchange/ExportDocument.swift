import Foundation
import Models
import Protocols
import Sync

/// The export file formats. JSON carries every entity in the `--json` shapes and round-trips losslessly; CSV carries
/// events one a row, with their type's columns so that an import can recreate the types.
enum ExportFormat: String, CaseIterable {
    case json, csv

    static func guess(path: String) -> ExportFormat? {
        ExportFormat(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// The format of a file whose name does not tell (stdin, no extension), from its first character: `{` is JSON
    /// (an export is an object); a header naming `id` is CSV. Nil when neither.
    static func guess(content: Data) -> ExportFormat? {
        let bytes = ExportDocument.withoutByteOrderMark(content)
        guard let first = bytes.first(where: { !" \t\r\n".utf8.contains($0) }) else { return nil }
        if first == UInt8(ascii: "{") { return .json }
        let header = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        return header.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "id" } ? .csv : nil
    }
}

/// An export being written: the account's small lists whole, its events read a page at a time.
struct ExportDocument {
    static let formatName = "trendy-export"
    static let version = 1
    /// Events read and written per page.
    static let pageSize = 2000
    /// Bytes gathered before each write.
    static let chunkBytes = 1 << 20

    /// The events of an export, oldest first, one page after another: `next(after)` reads the page after an event
    /// (the first page for nil); an empty page ends them. Only the events `keep` accepts are walked.
    struct EventPages {
        let next: (EventPosition?) throws -> [Event]
        var keep: (Event) -> Bool = { _ in true }

        /// Calls `body` with every event kept; returns how many it left out.
        @discardableResult
        func walk(_ body: (Event) throws -> Void) throws -> Int {
            var after: EventPosition?
            var leftOut = 0
            while true {
                let page = try next(after)
                guard let last = page.last else { return leftOut }
                for event in page {
                    if keep(event) { try body(event) } else { leftOut += 1 }
                }
                after = EventPosition(last)
            }
        }
    }

    var eventTypes: [EventType]
    var propertyDefinitions: [PropertyDefinition]
    var geofences: [Geofence]
    var events: EventPages
    var exportedAt: Date
    /// Geofences held here but not written: they name a type this database no longer holds.
    var geofencesLeftOut = 0

    /// How many events a document wrote, and how many its pages left out.
    struct Written {
        var events = 0
        var leftOut = 0
    }

    /// Writes the document in `format` through `sink`, a chunk at a time.
    func write(_ format: ExportFormat, to sink: (Data) throws -> Void) throws -> Written {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.chunkBytes + 4096)
        func flush(_ force: Bool = false) throws {
            guard force || buffer.count >= Self.chunkBytes, !buffer.isEmpty else { return }
            try sink(Data(buffer))
            buffer.removeAll(keepingCapacity: true)
        }
        var count = 0
        var leftOut = 0
        switch format {
        case .json:
            // `JSONText` writes members in sorted order: event_types, events, then the rest. The events are
            // streamed between the two halves.
            let head = JSONText.string(["event_types": .array(eventTypes.map(EntityJSON.eventType))])
            let rest = JSONText.string([
                "exported_at": EntityJSON.time(exportedAt), "format": .string(Self.formatName),
                "geofences": .array(geofences.map(EntityJSON.geofence)),
                "property_definitions": .array(propertyDefinitions.map(EntityJSON.propertyDefinition)),
                "version": .number(Double(Self.version)),
            ])
            buffer.append(contentsOf: head.utf8.dropLast())
            buffer.append(contentsOf: #","events":["#.utf8)
            leftOut = try events.walk { event in
                if count > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONText.write(EntityJSON.event(event), into: &buffer)
                count += 1
                try flush()
            }
            buffer.append(contentsOf: "],".utf8)
            buffer.append(contentsOf: rest.utf8.dropFirst())
            buffer.append(UInt8(ascii: "\n"))
        case .csv:
            let types = Dictionary(uniqueKeysWithValues: eventTypes.map { ($0.id, $0) })
            buffer.append(contentsOf: (Self.csvColumns.joined(separator: ",") + "\r\n").utf8)
            leftOut = try events.walk { event in
                buffer.append(contentsOf: (Self.csvRow(event, type: types[event.eventTypeId]) + "\r\n").utf8)
                count += 1
                try flush()
            }
        }
        try flush(true)
        return Written(events: count, leftOut: leftOut)
    }

    /// An import file's entities. A leading UTF-8 byte order mark, which Windows editors and spreadsheets write, is
    /// not part of the content (RFC 8259 §8.1 lets a reader ignore it).
    static func read(_ bytes: Data, as format: ExportFormat) throws(CLIError) -> ImportBatch {
        let content = withoutByteOrderMark(bytes)
        return switch format {
        case .json: try readJSON(content)
        case .csv: try readCSV(content)
        }
    }

    /// `bytes` past a leading UTF-8 byte order mark.
    static func withoutByteOrderMark(_ bytes: Data) -> Data {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(bytes.dropFirst(3)) : bytes
    }

    // MARK: JSON

    static func readJSON(_ bytes: Data) throws(CLIError) -> ImportBatch {
        let root: JSONValue
        do {
            root = try JSONText.parse(bytes)
        } catch {
            throw .invalidInput("the file is not JSON: \(error)")
        }
        guard case .object(let document) = root else { throw .invalidInput("the file must be a JSON object") }
        guard document["format"]?.stringValue == formatName else {
            throw .invalidInput("the file is not a trendyctl export (its \"format\" is not \"\(formatName)\")")
        }
        guard document["version"]?.intValue == version else {
            throw .invalidInput("export version \(document["version"].map(JSONText.string) ?? "?") is not supported")
        }
        func list(_ key: String) throws(CLIError) -> [JSONValue] {
            guard let value = document[key] else { return [] }
            guard case .array(let items) = value else { throw .invalidInput("\(key) must be an array") }
            return items
        }
        var batch = ImportBatch()
        for (index, item) in try list("event_types").enumerated() {
            batch.eventTypes.append(try EntityJSON.decode(EventType.self, item, at: "event_types[\(index)]"))
        }
        for (index, item) in try list("property_definitions").enumerated() {
            batch.propertyDefinitions.append(
                try EntityJSON.decode(PropertyDefinition.self, item, at: "property_definitions[\(index)]"))
        }
        for (index, item) in try list("geofences").enumerated() {
            batch.geofences.append(try EntityJSON.decode(Geofence.self, item, at: "geofences[\(index)]"))
        }
        for (index, item) in try list("events").enumerated() {
            batch.events.append(try EntityJSON.decode(Event.self, item, at: "events[\(index)]"))
        }
        return batch
    }

    // MARK: CSV

    /// The event's type travels in these columns, after `event_type_id`.
    static let typeColumns = ["event_type_name", "event_type_color", "event_type_icon", "event_type_created_at"]

    /// The event's `Codable` members (Models' one definition of them), its type's columns after `event_type_id`;
    /// `sync_status` is left out (an import is always pending).
    static let csvColumns: [String] = Event.fieldNames.filter { $0 != "sync_status" }.flatMap { name in
        name == "event_type_id" ? [name] + typeColumns : [name]
    }

    /// One row per event. A bare empty cell is null; a quoted empty cell (`""`) is the empty string. Cells come from
    /// the entity's JSON: strings as they are, numbers and booleans as JSON text, objects (properties) as JSON.
    static func csv(_ batch: ImportBatch) -> String {
        let types = Dictionary(uniqueKeysWithValues: batch.eventTypes.map { ($0.id, $0) })
        let lines = [csvColumns.joined(separator: ",")] + batch.events.map { csvRow($0, type: types[$0.eventTypeId]) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// One event's row; its type's columns from `type`.
    static func csvRow(_ event: Event, type: EventType?) -> String {
        var members = EntityJSON.event(event).objectValue ?? [:]
        if let type {
            members["event_type_name"] = .string(type.name)
            members["event_type_color"] = .string(type.color)
            members["event_type_icon"] = .string(type.icon)
            members["event_type_created_at"] = EntityJSON.time(type.createdAt)
        }
        let cells: [String?] = csvColumns.map { column in
            switch members[column] {
            case .string(let text)?: CSV.neutralized(text)
            case nil, .null?: nil
            case let value?: JSONText.string(value)
            }
        }
        return cells.map(CSV.field).joined(separator: ",")
    }

    static func readCSV(_ bytes: Data) throws(CLIError) -> ImportBatch {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let offset = CSV.firstInvalidUTF8(bytes) ?? 0
            throw .invalidInput(
                "the CSV file is not UTF-8 (an invalid byte at offset \(offset)); convert it first, e.g. "
                    + "iconv -f latin1 -t utf-8")
        }
        let rows = try CSV.parse(text)
        guard let header = rows.first else { throw .invalidInput("the CSV file is empty") }
        let names = header.map { $0 ?? "" }
        for required in ["id", "event_type_id", "timestamp"] where !names.contains(required) {
            throw .invalidInput(
                "the CSV header has no \(required) column (expected: \(csvColumns.joined(separator: ",")))")
        }
        // A column read twice, or not at all, would drop what a cell holds without a word.
        var seen = Set<String>()
        if let twice = names.first(where: { !seen.insert($0).inserted }) {
            throw .invalidInput("the CSV header names \(twice) twice; keep one column of that name")
        }
        // `sync_status` is the local state an entity had where it was exported: an import makes everything pending.
        if let unknown = names.first(where: { !csvColumns.contains($0) && $0 != "sync_status" }) {
            throw .invalidInput(
                "the CSV header has a column \"\(unknown)\" that is no field of an event; remove it (property "
                    + "values go in the properties column, as JSON). Columns: \(csvColumns.joined(separator: ","))")
        }
        var batch = ImportBatch()
        var typeIds = Set<String>()
        for (index, row) in rows.dropFirst().enumerated() {
            let line = index + 2
            if row == [nil] { continue }  // a blank line, as an editor leaves at the end
            guard row.count == names.count else {
                throw .invalidInput("line \(line) has \(row.count) cells; the header has \(names.count)")
            }
            var object: [String: JSONValue] = [:]
            for (name, cell) in zip(names, row) { if let cell { object[name] = .string(CSV.restored(cell)) } }
            // The event's type travels in its row's event_type_* columns: read as an event type of its own.
            if let typeId = object["event_type_id"]?.stringValue?.lowercased(), !typeIds.contains(typeId),
                object["event_type_name"] != nil
            {
                typeIds.insert(typeId)
                var type: [String: JSONValue] = ["created_at": .string(RFC3339.string(fromMilliseconds: 0))]
                for (key, column) in [
                    ("id", "event_type_id"), ("name", "event_type_name"), ("color", "event_type_color"),
                    ("icon", "event_type_icon"), ("created_at", "event_type_created_at"),
                ] {
                    if let value = object[column] { type[key] = value }
                }
                batch.eventTypes.append(
                    try EntityJSON.decode(EventType.self, .object(type), at: "line \(line) (its type)"))
            }
            // Numbers, booleans and properties arrive as text; give the entity reader their JSON types.
            var typed = object
            for key in ["location_latitude", "location_longitude"] {
                if let text = object[key]?.stringValue {
                    guard let number = Double(text) else { throw .invalidInput("line \(line): \(key) is not a number") }
                    typed[key] = .number(number)
                }
            }
            if let text = object["is_all_day"]?.stringValue {
                guard let flag = Bool(text) else {
                    throw .invalidInput("line \(line): is_all_day must be true or false")
                }
                typed["is_all_day"] = .bool(flag)
            }
            if let text = object["properties"]?.stringValue {
                do {
                    typed["properties"] = try JSONText.parse(text)
                } catch {
                    throw .invalidInput("line \(line): properties is not JSON: \(error)")
                }
            }
            batch.events.append(try EntityJSON.decode(Event.self, .object(typed), at: "line \(line)"))
        }
        return batch
    }
}

/// RFC 4180 fields, with one extension: a bare empty field is null, a quoted empty field is the empty string.
/// Kept hand-written: that null-versus-empty extension is ours, and the only CSV package here (SwiftCSV) reads only.
enum CSV {
    /// A text cell a spreadsheet could run as a formula — one starting with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return (OWASP's CSV injection rule) — gets a leading `'`, which spreadsheets show as text. A cell already
    /// starting with `'` gets one too, so `restored` can take exactly one off and the round trip stays lossless.
    static func neutralized(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r'".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    /// The text of a cell `neutralized` wrote: one leading `'` dropped.
    static func restored(_ cell: String) -> String {
        cell.hasPrefix("'") ? String(cell.dropFirst()) : cell
    }

    /// The offset of the first byte that is not valid UTF-8.
    static func firstInvalidUTF8(_ bytes: Data) -> Int? {
        var offset = 0
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var consumed = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
                consumed = offset
            case .emptyInput: return nil
            case .error: return consumed
            }
        }
    }

    static func field(_ value: String?) -> String {
        guard let value else { return "" }
        if value.isEmpty { return "\"\"" }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func parse(_ text: String) throws(CLIError) -> [[String?]] {
        var rows: [[String?]] = []
        var row: [String?] = []
        var field = ""
        var quoted = false
        var inQuotes = false
        var characters = text.makeIterator()
        var pending = characters.next()
        func endField() {
            row.append(quoted || !field.isEmpty ? field : nil)
            field = ""
            quoted = false
        }
        while let character = pending {
            pending = characters.next()
            if inQuotes {
                if character == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = characters.next()
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty && !quoted:
                inQuotes = true
                quoted = true
            case ",":
                endField()
            case "\r\n", "\n", "\r":
                endField()
                rows.append(row)
                row = []
            default:
                field.append(character)
            }
        }
        if inQuotes { throw .invalidInput("the CSV file ends inside a quoted field") }
        if !field.isEmpty || quoted || !row.isEmpty {
            endField()
            rows.append(row)
        }
        return rows
    }
}
