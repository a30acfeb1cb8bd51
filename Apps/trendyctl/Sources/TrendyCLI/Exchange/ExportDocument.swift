import Foundation
import Models
import Sync

/// The export file formats. JSON carries every entity in the `--json` shapes and round-trips losslessly; CSV carries
/// events one a row, with their type's columns so that an import can recreate the types.
enum ExportFormat: String, CaseIterable {
    case json, csv

    static func guess(path: String) -> ExportFormat? {
        ExportFormat(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased())
    }
}

enum ExportDocument {
    static let formatName = "trendy-export"
    static let version = 1

    // MARK: JSON

    static func json(_ batch: ImportBatch, exportedAt: Date) -> String {
        let document: JSONValue = [
            "format": .string(formatName), "version": .number(Double(version)),
            "exported_at": EntityJSON.time(exportedAt),
            "event_types": .array(batch.eventTypes.map(EntityJSON.eventType)),
            "property_definitions": .array(batch.propertyDefinitions.map(EntityJSON.propertyDefinition)),
            "geofences": .array(batch.geofences.map(EntityJSON.geofence)),
            "events": .array(batch.events.map(EntityJSON.event)),
        ]
        return JSONText.string(document) + "\n"
    }

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
            batch.eventTypes.append(try EntityReader.eventType(item, at: "event_types[\(index)]"))
        }
        for (index, item) in try list("property_definitions").enumerated() {
            batch.propertyDefinitions.append(
                try EntityReader.propertyDefinition(item, at: "property_definitions[\(index)]"))
        }
        for (index, item) in try list("geofences").enumerated() {
            batch.geofences.append(try EntityReader.geofence(item, at: "geofences[\(index)]"))
        }
        for (index, item) in try list("events").enumerated() {
            batch.events.append(try EntityReader.event(item, at: "events[\(index)]"))
        }
        return batch
    }

    // MARK: CSV

    static let csvColumns = [
        "id", "event_type_id", "event_type_name", "event_type_color", "event_type_icon", "event_type_created_at",
        "timestamp", "end_date", "is_all_day", "notes", "source_type", "external_id", "original_title", "geofence_id",
        "location_latitude", "location_longitude", "location_name", "healthkit_sample_id", "healthkit_category",
        "properties",
    ]

    /// One row per event. A bare empty cell is null; a quoted empty cell (`""`) is the empty string.
    static func csv(_ batch: ImportBatch) -> String {
        let types = Dictionary(uniqueKeysWithValues: batch.eventTypes.map { ($0.id, $0) })
        var lines = [csvColumns.joined(separator: ",")]
        for event in batch.events {
            let type = types[event.eventTypeId]
            let cells: [String?] = [
                event.id, event.eventTypeId, type?.name, type?.color, type?.icon,
                type.map { RFC3339.string(from: $0.createdAt) }, RFC3339.string(from: event.timestamp),
                event.endDate.map(RFC3339.string(from:)), String(event.isAllDay), event.notes,
                event.sourceType.rawValue,
                event.externalId, event.originalTitle, event.geofenceId,
                event.locationLatitude.map { JSONText.string(.number($0)) },
                event.locationLongitude.map { JSONText.string(.number($0)) }, event.locationName,
                event.healthKitSampleId,
                event.healthKitCategory,
                event.properties.isEmpty ? nil : JSONText.string(.object(event.properties.mapValues(\.json))),
            ]
            lines.append(cells.map(CSV.field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func readCSV(_ bytes: Data) throws(CLIError) -> ImportBatch {
        let rows = try CSV.parse(String(decoding: bytes, as: UTF8.self))
        guard let header = rows.first else { throw .invalidInput("the CSV file is empty") }
        let names = header.map { $0 ?? "" }
        for required in ["id", "event_type_id", "timestamp"] where !names.contains(required) {
            throw .invalidInput(
                "the CSV header has no \(required) column (expected: \(csvColumns.joined(separator: ",")))")
        }
        var batch = ImportBatch()
        var typeIds = Set<String>()
        for (index, row) in rows.dropFirst().enumerated() {
            let line = index + 2
            guard row.count == names.count else {
                throw .invalidInput("line \(line) has \(row.count) cells; the header has \(names.count)")
            }
            var object: [String: JSONValue] = [:]
            for (name, cell) in zip(names, row) { if let cell { object[name] = .string(cell) } }
            let reader = try EntityReader(.object(object), at: "line \(line)")
            let typeId = try reader.id("event_type_id")
            if !typeIds.contains(typeId), let name = try reader.optionalString("event_type_name") {
                typeIds.insert(typeId)
                batch.eventTypes.append(
                    EventType(
                        id: typeId, name: name,
                        color: try reader.optionalString("event_type_color") ?? EventType.defaultColor,
                        icon: try reader.optionalString("event_type_icon") ?? EventType.defaultIcon,
                        createdAt: try reader.optionalTime("event_type_created_at") ?? Date(timeIntervalSince1970: 0)))
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
            batch.events.append(try EntityReader.event(.object(typed), at: "line \(line)"))
        }
        return batch
    }
}

/// RFC 4180 fields, with one extension: a bare empty field is null, a quoted empty field is the empty string.
/// Kept hand-written: that null-versus-empty extension is ours, and the only CSV package here (SwiftCSV) reads only.
enum CSV {
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
