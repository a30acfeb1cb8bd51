import Foundation
import Logging
import Models
import Protocols

/// The offline-first sync engine (sync-engine §3–§6): pushes the outbox, pulls the change feed or bootstraps,
/// rate-limits itself, and keeps its state in the same database as the data.
///
/// Depends only on `Protocols`: any `NetworkClientProtocol`, any `DataStoreFactory`, any `SHA256Hashing`, any
/// `SyncClock`. Every store is created inside the actor, used in one synchronous stretch, and released before the
/// next `await`.
public actor SyncEngine {
    let network: any NetworkClientProtocol
    let stores: any DataStoreFactory
    let clock: any SyncClock
    /// Keys event batches (S31); injected so that `Sync` links no crypto library.
    let hashing: any SHA256Hashing
    /// History ids from the engine's clock (S1), increasing while that clock does not go back, so rounds that
    /// finish in one millisecond keep their order.
    let historyIds = UUIDv7.Generator()
    /// The settings the engine was made with.
    public let configuration: SyncConfiguration
    let logger: Logger

    /// The run in progress and who joined it (single flight, sync-engine §4.1).
    var flight = SingleFlight()
    /// What the run in progress has done so far.
    var thisRun = RunFacts()
    var state: SyncState = .idle
    var lastReport: SyncReport?
    /// The last engine state read or written, for snapshots only: decisions always re-read the store.
    var observedEngineState = EngineState()
    var observedCounts = MutationCounts(pending: 0, failed: 0)
    /// Entities owed a read-back (R4), for snapshots.
    var observedOwed = 0
    var published: SyncSnapshot?
    var observers: [UUID: AsyncStream<SyncSnapshot>.Continuation] = [:]
    /// Live mode (R12): its loop, where it stands, what wakes it, and who watches it.
    var liveSession = LiveSession()
    /// Awaited before each live round; its result is held for the round (`startLive(roundGate:)`).
    var roundGate: (@Sendable () async -> (any Sendable)?)?

    /// No I/O happens here; call `loadInitialState()` to publish the first snapshot.
    public init(
        networkClient: any NetworkClientProtocol,
        dataStoreFactory: any DataStoreFactory,
        hashing: any SHA256Hashing,
        clock: any SyncClock = SystemClock(),
        configuration: SyncConfiguration = .standard(),
        logger: Logger = Logger(label: "trendy.sync")
    ) {
        self.network = networkClient
        self.stores = dataStoreFactory
        self.clock = clock
        self.hashing = hashing
        self.configuration = configuration
        self.logger = logger
    }

    deinit {
        for continuation in observers.values { continuation.finish() }
    }

    // MARK: Units of work

    /// Runs `body` on a fresh store and commits. Synchronous: a store can never live across an `await`.
    func unitOfWork<Result>(_ body: (any DataStoreProtocol) throws -> Result) throws -> Result {
        let store = stores.makeDataStore()
        let result = try body(store)
        try store.save()
        return result
    }

    /// Reads, changes and saves the engine state in one unit of work.
    @discardableResult
    func updateEngineState<Result>(_ change: (inout EngineState) throws -> Result) throws -> Result {
        try unitOfWork { store in
            var engineState = try store.loadEngineState()
            let result = try change(&engineState)
            try store.saveEngineState(engineState)
            observedEngineState = engineState
            return result
        }
    }

    func readEngineState() throws -> EngineState {
        let engineState = try unitOfWork { try $0.loadEngineState() }
        observedEngineState = engineState
        return engineState
    }

    var now: Date { clock.now() }

    // MARK: Lifecycle

    /// Reads the engine state and the queue sizes and publishes the first snapshot. Idempotent.
    public func loadInitialState() async throws {
        try refreshObservation()
        publish()
    }

    /// Re-reads what snapshots show; callers that wrote to the store themselves (`EventStore`) call it.
    public func noteLocalChanges() async {
        try? refreshObservation()
        publish()
    }

    func refreshObservation() throws {
        let (engineState, counts, owed) = try unitOfWork { store in
            (try store.loadEngineState(), try store.countMutations(), try store.owedEntities().count)
        }
        observedEngineState = engineState
        observedCounts = counts
        observedOwed = owed
    }
}
