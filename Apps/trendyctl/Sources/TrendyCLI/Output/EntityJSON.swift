import Foundation
import Models

/// The `--json` shapes of spec/trendyctl.md §1.4: API field names, unset optionals omitted, RFC 3339 UTC times with
/// milliseconds, plus `sync_status`. Entities print their `Codable` shape; export files use the same shapes.
enum EntityJSON {
    static func time(_ date: Date) -> JSONValue { .string(RFC3339.string(from: date)) }

    private static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for case (let key, let value?) in members { object[key] = value }
        return .object(object)
    }

    /// An entity in its `--json` shape, which is its `Codable` shape (Models): one definition of every field serves
    /// `--json`, export and import.
    static func entity(_ entity: some Encodable) -> JSONValue {
        // The entities' encoders cannot fail (strings, numbers, dates as text); `.null` would only mark a bug.
        (try? JSONCoding.encode(entity)).flatMap { try? JSONText.parse(Array($0)) } ?? .null
    }

    /// An entity read back from its `--json` shape (export files), strictly: a member that is missing, of the
    /// wrong type or not valid is an error naming where it is, e.g. `events[3].timestamp`.
    static func decode<Entity: Decodable>(
        _ type: Entity.Type, _ value: JSONValue, at path: String
    )
        throws(CLIError) -> Entity
    {
        guard case .object = value else { throw .invalidInput("\(path) must be an object") }
        do {
            return try JSONCoding.decode(type, from: Data(JSONText.string(value).utf8))
        } catch let error as DecodingError {
            throw .invalidInput(describe(error, at: path))
        } catch {
            throw .invalidInput("\(path): \(error)")
        }
    }

    private static func describe(_ error: DecodingError, at path: String) -> String {
        func location(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
            ([path] + (codingPath + (key.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue })
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(location(context.codingPath, key)) is missing"
        case .valueNotFound(_, let context): return "\(location(context.codingPath)) is missing"
        case .typeMismatch(let type, let context):
            let expected =
                type == String.self
                ? "a string"
                : type == Bool.self
                    ? "true or false"
                    : type == Double.self || type == Int.self ? "a number" : "a \(type)"
            return "\(location(context.codingPath)) must be \(expected)"
        case .dataCorrupted(let context):
            return "\(location(context.codingPath)) is \(context.debugDescription)"
        @unknown default: return "\(path): \(error)"
        }
    }

    static func event(_ event: Event) -> JSONValue { entity(event) }
    static func eventType(_ type: EventType) -> JSONValue { entity(type) }
    static func geofence(_ fence: Geofence) -> JSONValue { entity(fence) }
    static func propertyDefinition(_ definition: PropertyDefinition) -> JSONValue { entity(definition) }

    static func mutation(_ mutation: PendingMutation) -> JSONValue {
        object([
            ("id", .string(mutation.id)), ("entity_type", .string(mutation.entityType.rawValue)),
            ("entity_id", .string(mutation.entityId)), ("operation", .string(mutation.operation.rawValue)),
            ("state", .string(mutation.state.rawValue)), ("attempts", .number(Double(mutation.attempts))),
            ("last_error", mutation.lastError.map(JSONValue.string) ?? .null), ("created_at", time(mutation.createdAt)),
        ])
    }

    static func history(_ entry: SyncHistoryEntry) -> JSONValue {
        object([
            ("id", .string(entry.id)), ("started_at", time(entry.startedAt)),
            ("duration_ms", .number(Double(entry.durationMs))), ("outcome", .string(entry.outcome)),
            ("pushed", .number(Double(entry.pushed))), ("pulled", .number(Double(entry.pulled))),
            ("message", entry.message.map(JSONValue.string) ?? .null),
        ])
    }

    static func deleted(_ ids: [String]) -> JSONValue { ["deleted": .array(ids.map(JSONValue.string))] }
}
