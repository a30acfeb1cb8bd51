import Foundation
import Models
import Networking

/// A whole account's data, local or the server's, keyed by id.
struct Entities {
    var types: [String: EventType] = [:]
    var events: [String: Event] = [:]
    var geofences: [String: Geofence] = [:]
    var definitions: [String: PropertyDefinition] = [:]

    var allIds: Set<String> {
        Set(types.keys).union(events.keys).union(geofences.keys).union(definitions.keys)
    }

    /// The server's data as rows a device would hold after writing it (`replaceFields`), so both compare with `==`.
    static func server(_ client: APIClient) async throws -> Entities {
        var entities = Entities()
        let moment = Date(millisecondsSince1970: 0)
        for api in try await client.getEventTypes() {
            var type = EventType(id: api.id, name: "", color: "", icon: "", createdAt: moment)
            type.replaceFields(with: api)
            entities.types[api.id] = type
            for apiDefinition in try await client.getPropertyDefinitions(eventTypeId: api.id) {
                var definition = PropertyDefinition(
                    id: apiDefinition.id, eventTypeId: api.id, key: "", label: "", propertyType: .text,
                    createdAt: moment, updatedAt: moment)
                definition.replaceFields(with: apiDefinition)
                entities.definitions[definition.id] = definition
            }
        }
        for api in try await client.getAllEvents(batchSize: 500) {
            var event = Event(id: api.id, eventTypeId: "", timestamp: moment)
            event.replaceFields(with: api)
            entities.events[api.id] = event
        }
        for api in try await client.getGeofences(activeOnly: false) {
            var fence = Geofence(id: api.id, name: "", latitude: 0, longitude: 0, createdAt: moment)
            fence.replaceFields(with: api)
            entities.geofences[api.id] = fence
        }
        return entities
    }

    /// The first difference between a device's rows and the server's, ignoring `skipping`, `sync_status` and the
    /// server's bookkeeping times (`created_at`, `updated_at`: set by the server, not compared by api-v1 §3.4
    /// either); every field a client writes is compared.
    static func firstDifference(
        _ name: String, _ local: Entities, _ server: Entities, skipping: Set<String> = []
    ) -> String? {
        func differ<Row: Equatable>(
            _ kind: String, _ mine: [String: Row], _ theirs: [String: Row], _ normalise: (inout Row, Row) -> Void
        ) -> String? {
            for id in Set(mine.keys).union(theirs.keys).subtracting(skipping).sorted() {
                guard let row = mine[id] else { return "\(name) lacks \(kind) \(id) that the server has" }
                guard var other = theirs[id] else { return "\(name) has \(kind) \(id) that the server has not" }
                normalise(&other, row)
                if other != row { return "\(name)'s \(kind) \(id) differs:\n  local:  \(row)\n  server: \(other)" }
            }
            return nil
        }
        return differ("event type", local.types, server.types) {
            $0.syncStatus = $1.syncStatus
            $0.createdAt = $1.createdAt
        }
            ?? differ("event", local.events, server.events) { $0.syncStatus = $1.syncStatus }
            ?? differ("geofence", local.geofences, server.geofences) {
                $0.syncStatus = $1.syncStatus
                $0.createdAt = $1.createdAt
            }
            ?? differ("property definition", local.definitions, server.definitions) {
                $0.syncStatus = $1.syncStatus
                $0.createdAt = $1.createdAt
                $0.updatedAt = $1.updatedAt
            }
    }
}
