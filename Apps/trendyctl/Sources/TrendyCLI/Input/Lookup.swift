import Foundation
import Models
import Sync

/// Finds the entities arguments name.
enum Lookup {
    /// TYPE: an event-type id, or its name (case-insensitive, exact). Names are unique only with their case
    /// (api-v1 §4.1), so `Tea` and `tea` may both exist: a name spelt exactly as one of them picks that one. Ambiguous
    /// or unknown names are errors that name the candidates.
    static func eventType(_ argument: String, in store: EventStore) throws -> EventType {
        try eventType(argument, among: try store.eventTypes())
    }

    /// As `eventType(_:in:)`, among `types` already read (inside a transaction).
    static func eventType(_ argument: String, among types: [EventType]) throws -> EventType {
        if let byId = types.first(where: { $0.id == argument.lowercased() }) { return byId }
        let named = types.filter { $0.name.lowercased() == argument.lowercased() }
        if named.count == 1, let type = named.first { return type }
        let spelt = named.filter { $0.name == argument }
        if spelt.count == 1, let type = spelt.first { return type }
        if named.count > 1 {
            throw CLIError.usage(
                "\"\(argument)\" names \(named.count) event types: "
                    + named.map { "\($0.name) (\($0.id))" }.joined(separator: ", ") + "; use an id")
        }
        let known = types.map(\.name).sorted()
        throw CLIError.notFound(
            "no event type \"\(argument)\""
                + (known.isEmpty
                    ? "; create one with `trendyctl types add NAME`"
                    : "; known types: \(known.joined(separator: ", "))"))
    }

    static func event(_ id: String, in store: EventStore) throws -> Event {
        guard let event = try store.event(id: id.lowercased()) else {
            throw CLIError.notFound("no event \(id); `trendyctl events list` shows the ids")
        }
        return event
    }

    static func geofence(_ id: String, in store: EventStore) throws -> Geofence {
        guard let fence = try store.geofence(id: id.lowercased()) else {
            throw CLIError.notFound("no geofence \(id); `trendyctl geofences list` shows the ids")
        }
        return fence
    }

    static func propertyDefinition(_ id: String, in store: EventStore) throws -> PropertyDefinition {
        guard let definition = try store.propertyDefinition(id: id.lowercased()) else {
            throw CLIError.notFound("no property definition \(id); `trendyctl props list TYPE` shows the ids")
        }
        return definition
    }
}
