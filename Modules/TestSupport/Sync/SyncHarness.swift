import Foundation
import Hashing
import Models
import Protocols
import Sync

/// A `SyncEngine` wired to test doubles: `MockNetworkClient` on an `InMemoryTrendyServer`, `MockDataStoreFactory`,
/// and one `ManualClock` for all of them. Everything a test needs to act (local writes through `events`) and to
/// look (the queue, the engine state, the server's data).
public struct SyncHarness: Sendable {
    public let clock: ManualClock
    public let model: InMemoryTrendyServer
    public let network: MockNetworkClient
    public let stores: MockDataStoreFactory
    public let engine: SyncEngine
    public let events: EventStore

    public init(
        configuration: SyncConfiguration = .standard(), model: InMemoryTrendyServer? = nil, user: String? = nil
    )
        throws
    {
        let clock = ManualClock()
        self.clock = clock
        let model = model ?? InMemoryTrendyServer(clock: clock, futureIdTolerance: nil)
        self.model = model
        network = MockNetworkClient(server: model, userId: user ?? MockNetworkClient.defaultUserId)
        stores = try MockDataStoreFactory(clock: clock)
        engine = SyncEngine(
            networkClient: network, dataStoreFactory: stores, hashing: CryptoSHA256(), clock: clock,
            configuration: configuration)
        events = EventStore(engine: engine, dataStoreFactory: stores, clock: clock)
    }

    /// Another device of the same user on the same server, with its own database.
    public func secondDevice(configuration: SyncConfiguration = .standard()) throws -> SyncHarness {
        try SyncHarness(configuration: configuration, model: model, user: network.userId)
    }

    /// The local database, read directly.
    public var store: MockDataStore { stores.store }

    public func queue() throws -> [PendingMutation] {
        let store = stores.makeDataStore()
        defer { try? store.save() }  // ends the unit: an observation (R13) waits for no open read
        return try store.fetchPendingMutations()
    }

    public func engineState() throws -> EngineState {
        let store = stores.makeDataStore()
        defer { try? store.save() }
        return try store.loadEngineState()
    }

    public func updateEngineState(_ change: (inout EngineState) -> Void) throws {
        let store = stores.makeDataStore()
        var state = try store.loadEngineState()
        change(&state)
        try store.saveEngineState(state)
        try store.save()
    }

    /// The entities owed a read-back (R4).
    public func owed() throws -> [OwedEntity] {
        let store = stores.makeDataStore()
        defer { try? store.save() }
        return try store.owedEntities()
    }

    public func history() throws -> [SyncHistoryEntry] {
        let store = stores.makeDataStore()
        defer { try? store.save() }
        return try store.fetchSyncHistory(limit: 1000)
    }

    /// The server's data for this harness's user.
    public var serverEvents: [APIEvent] { model.events(of: network.userId) }
    public var serverEventTypes: [APIEventType] { model.eventTypes(of: network.userId) }
    public var serverChanges: [ChangeEntry] { model.changes(of: network.userId) }
}
