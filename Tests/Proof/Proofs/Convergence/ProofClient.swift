import Foundation
import Hashing
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

    init(name: String, directory: URL, root: ServerRoot, token: String, clock: ManualClock) throws {
        self.name = name
        let client = APIClient(
            configuration: try APIClient.Configuration(
                serverRoot: root, requestTimeout: 10, resourceTimeout: 20, maxRateLimitRetries: 1),
            tokenProvider: StaticTokenProvider(token), clock: clock)
        let stores = try DefaultDataStoreFactory(
            .file(path: directory.appendingPathComponent("\(name).sqlite").path), clock: clock)
        engine = SyncEngine(
            networkClient: client, dataStoreFactory: stores, hashing: CryptoSHA256(), clock: clock,
            configuration: .standard(serverRoot: root))
        events = EventStore(engine: engine, dataStoreFactory: stores, clock: clock)
    }

    /// A device that talks to `server` directly.
    init(name: String, directory: URL, server: ProofServer, clock: ManualClock) throws {
        try self.init(name: name, directory: directory, root: server.root, token: server.token, clock: clock)
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
