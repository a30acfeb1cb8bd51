import Foundation
import Models
import Networking
import Persistence
import Protocols
import Sync
import TestSupport

/// One device of the run: an `EventStore` and a `SyncEngine` on a SQLite file, `APIClient` over loopback.
struct ProofClient {
    let name: String
    let engine: SyncEngine
    let events: EventStore
    /// Operations left before this device comes back online; it does not sync meanwhile.
    var offlineFor = 0

    init(name: String, directory: URL, server: ProofServer, clock: ManualClock) throws {
        self.name = name
        let client = APIClient(
            configuration: try APIClient.Configuration(
                serverRoot: server.root, requestTimeout: 10, resourceTimeout: 20, maxRateLimitRetries: 1),
            tokenProvider: StaticTokenProvider(server.token), clock: clock)
        let stores = try DefaultDataStoreFactory(
            .file(path: directory.appendingPathComponent("\(name).sqlite").path), clock: clock)
        engine = SyncEngine(
            networkClient: client, dataStoreFactory: stores, clock: clock,
            configuration: .standard(serverRoot: server.root))
        events = EventStore(engine: engine, dataStoreFactory: stores, clock: clock)
    }

    /// Every entity this device holds, by id.
    func entities() throws -> Entities {
        var entities = Entities()
        for type in try events.eventTypes() {
            entities.types[type.id] = type
            for definition in try events.propertyDefinitions(eventTypeId: type.id) {
                entities.definitions[definition.id] = definition
            }
        }
        for event in try events.events() { entities.events[event.id] = event }
        for fence in try events.geofences() { entities.geofences[fence.id] = fence }
        return entities
    }
}

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
}
