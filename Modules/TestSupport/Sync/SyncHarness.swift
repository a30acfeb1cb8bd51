import Foundation
import Hashing
import Models
import Protocols
import Sync

/// A `SyncEngine` wired to test doubles: `MockNetworkClient` on an `InMemoryTrendyServer`, `MockDataStoreFactory`,
/// and one `ManualClock` for all of them. Everything a test needs to act (local writes through `events`) and to
/// look (the queue, the engine state, the server's data).
public struct SyncHarness: Sendable {
    /// The one clock of the engine, the store and the model: advance it instead of sleeping.
    public let clock: ManualClock
    /// The in-memory server, shared with `secondDevice()`.
    public let model: InMemoryTrendyServer
    /// The engine's network client, on `model` as this harness's user.
    public let network: MockNetworkClient
    /// The engine's store factory, on a private in-memory database.
    public let stores: MockDataStoreFactory
    /// The engine under test.
    public let engine: SyncEngine
    /// The app's writes, through the engine's unit-of-work rule (sync-engine §1.8).
    public let events: EventStore

    /// A device of `user` (`MockNetworkClient.defaultUserId` by default) on `model` (a new one by default).
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

    /// The outbox, live and dead, in queue order.
    public func queue() throws -> [PendingMutation] { try read { try $0.fetchPendingMutations() } }

    /// The stored engine state.
    public func engineState() throws -> EngineState { try read { try $0.loadEngineState() } }

    /// Reads the local database as the test's own look, beside an engine that may be running (live mode): through
    /// `MockDataStore.read`, which answers `busy` while the engine's unit of work is active instead of starting a new
    /// unit, which would roll the engine's back mid-way. The look is repeated every millisecond while it is busy,
    /// for at most `TestWait.limit`: a unit of work ends within a few calls of the engine, so this is no wait for a
    /// condition (`waitUntil`), only for the engine's current step.
    public func read<Value>(_ query: (any DataStoreProtocol) throws -> Value) throws -> Value {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestWait.limit)
        while true {
            do {
                return try stores.store.read(query)
            } catch DataStoreError.busy where clock.now < deadline {
                usleep(1000)
            }
        }
    }

    /// The engine's state, its last calls and the clock's sleepers: what a wait that timed out shows (`lastSeen`).
    public func stateDescription() async -> String {
        let snapshot = await engine.snapshot
        return "engine \(snapshot.state), live \(snapshot.live), running \(snapshot.isRunning), "
            + "calls \(network.calls.map(\.method.rawValue).suffix(12)), sleepers \(clock.suspendedSleepers)"
    }

    /// Changes the stored engine state in a unit of work of its own, as another process could.
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

    /// The sync history, newest first.
    public func history() throws -> [SyncHistoryEntry] {
        let store = stores.makeDataStore()
        defer { try? store.save() }
        return try store.fetchSyncHistory(limit: 1000)
    }

    /// The server's data for this harness's user.
    public var serverEvents: [APIEvent] { model.events(of: network.userId) }
    /// The server's event types for this harness's user.
    public var serverEventTypes: [APIEventType] { model.eventTypes(of: network.userId) }
    /// The server's change feed for this harness's user, oldest first.
    public var serverChanges: [ChangeEntry] { model.changes(of: network.userId) }
}
