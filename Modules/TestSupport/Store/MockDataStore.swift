import Foundation
import Models
import Persistence
import Protocols
import Synchronization

/// The real SQLite store on a private in-memory database, wrapped with a call counter per method and fault
/// injection (sync-engine §2.9).
///
/// One instance is shared by every `makeDataStore()` of a `MockDataStoreFactory`; each such call starts a new
/// unit of work by rolling back whatever the previous one left unsaved, exactly as releasing a real store does.
///
/// `@unchecked Sendable`, proven by construction: the only mutable state (`inner`, `counts`, `faults`) is read and
/// written exclusively inside `locked`, which holds `lock` for the whole operation, so no two threads ever touch
/// it at once. (A `Mutex` cannot hold it: callers' non-`Sendable` closures must run against the inner store.)
public final class MockDataStore: DataStoreProtocol, @unchecked Sendable {
    /// Runs a read-only `query` on the shared store under its lock, uncounted and without faults: inside the unit of
    /// work in progress when there is one (it sees that unit's writes), else in one that the next `makeDataStore()`
    /// rolls back. The observation twin (R13) reads this way, so it never waits for the database while a caller's
    /// unit holds it.
    public func read<Value>(_ query: (any DataStoreProtocol) throws -> Value) throws -> Value {
        try locked {
            // A caller's unit in progress is not committed: read once it is saved (the observation tries again).
            // One idle for 100 ms was left unsaved; the next `makeDataStore()` would roll it back: so does this.
            if unitOpen {
                guard ProcessInfo.processInfo.systemUptime - lastActivity > 0.1 else {
                    throw DataStoreError.busy(seconds: 0)
                }
                unitOpen = false
            }
            let value = try query(inner)
            inner = LocalStore(storage: storage)
            return value
        }
    }

    /// Every `DataStoreProtocol` requirement, for counters and fault injection; a generic entity operation counts
    /// under its kind's seed name (`upsert` of an `Event` is `.upsertEvent`), whichever way it was called. The seed's
    /// bulk deletes are `deleteEntities`, `hasPendingMutation` is `fetchMutations` and the mark-synced methods are
    /// `setSyncStatus`; `fetchMutations` of every entity counts as `fetchPendingMutations`, and `completeMutation`
    /// without a revision as `deletePendingMutation`.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// An upsert of server data (sync-engine §2.4), by entity kind.
        case upsertEvent, upsertEventType, upsertGeofence, upsertPropertyDefinition
        /// An insert of a new local row, by entity kind.
        case insertEvent, insertEventType, insertGeofence, insertPropertyDefinition
        /// A delete of one row, by entity kind.
        case deleteEvent, deleteEventType, deleteGeofence, deletePropertyDefinition
        /// A lookup by id, by entity kind.
        case findEvent, findEventType, findGeofence, findPropertyDefinition
        /// A listing of every row, by entity kind.
        case fetchAllEvents, fetchAllEventTypes, fetchAllGeofences, fetchAllPropertyDefinitions
        /// The seed's outbox operations (sync-engine §2.4).
        case fetchPendingMutations, insertPendingMutation, deletePendingMutation
        /// The commit of a unit of work.
        case save
        /// The outbox's operations (sync-engine §2.5, DS1–DS5).
        case enqueueMutation, claimMutations, completeMutation, recordMutationFailure, reviveMutation
        /// Status, bulk deletes, engine state and history (DS6–DS11).
        case setSyncStatus, deleteEntities, loadEngineState, saveEngineState, appendSyncHistory, fetchSyncHistory
        /// Queries (Q1–Q4).
        case fetchEvents, countMutations, fetchMutations, liveMutationRevisions
        /// A payload rewrite (R8) and the owed entities (DS12–DS14).
        case rewriteMutation, markOwed, owedEntities, settleOwed
        /// Unanswered batches (sync-engine §4.7 step 2).
        case recordUnansweredBatch, unansweredBatches, removeUnansweredBatch
        /// The bootstrap's staging (DS16–DS18).
        case clearStagedEvents, stageEvents, insertStagedEvents
        /// Acknowledged versions (DS20–DS21).
        case recordAcknowledged, acknowledgedVersions
    }

    /// The error an injected fault throws.
    public struct InjectedFault: Error, Equatable, CustomStringConvertible {
        /// The method that threw it.
        public let method: Method

        /// The fault of `method`.
        public init(method: Method) {
            self.method = method
        }

        public var description: String { "injected fault in \(method.rawValue)" }
    }

    private struct Fault {
        var remainingCalls: Int
        var error: any Error
    }

    /// The in-memory database under the store.
    public let storage: DatabaseStorage
    private let lock = NSLock()
    private var inner: LocalStore
    /// A unit of work began (`makeDataStore()`) and was not saved yet.
    private var unitOpen = false
    /// When the open unit last did something: one idle for long was abandoned unsaved (its caller read and left).
    private var lastActivity: TimeInterval = 0
    private var counts: [Method: Int] = [:]
    private var faults: [Method: Fault] = [:]

    /// A fresh, empty, migrated in-memory database whose placeholder rows take their time from `clock`.
    public init(clock: any SyncClock = ManualClock()) throws {
        let storage = try DatabaseStorage.open(.inMemory, clock: clock)
        self.storage = storage
        inner = LocalStore(storage: storage)
    }

    // MARK: Spying and faults

    /// How many times `method` was called.
    public func callCount(_ method: Method) -> Int { locked { counts[method, default: 0] } }

    /// Zeroes every counter.
    public func resetCallCounts() { locked { counts = [:] } }

    /// Makes the `nthCall`-th call of `method` from now throw `error` (once). Like any failing operation it rolls
    /// back the current unit of work.
    public func injectFault(_ method: Method, onCall nthCall: Int = 1, error: (any Error)? = nil) {
        precondition(nthCall >= 1, "calls are counted from 1")
        locked { faults[method] = Fault(remainingCalls: nthCall, error: error ?? InjectedFault(method: method)) }
    }

    /// Removes every pending fault.
    public func clearFaults() { locked { faults = [:] } }

    /// Starts a new unit of work, rolling back anything unsaved (what releasing a real store does).
    public func beginUnitOfWork() {
        locked {
            inner = LocalStore(storage: storage)
            unitOpen = true
            lastActivity = ProcessInfo.processInfo.systemUptime
        }
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func call<Result>(_ method: Method, _ body: (LocalStore) throws -> Result) throws -> Result {
        try locked {
            lastActivity = ProcessInfo.processInfo.systemUptime
            counts[method, default: 0] += 1
            if var fault = faults[method] {
                fault.remainingCalls -= 1
                if fault.remainingCalls == 0 {
                    faults[method] = nil
                    inner = LocalStore(storage: storage)
                    throw fault.error
                }
                faults[method] = fault
            }
            return try body(inner)
        }
    }

    // MARK: Named counters for the most used methods (each `callCount(_:)` of its method)

    /// How many times `upsertEvent` was called: `callCount(.upsertEvent)`.
    public var upsertEventCallCount: Int { callCount(.upsertEvent) }
    /// How many times `upsertEventType` was called: `callCount(.upsertEventType)`.
    public var upsertEventTypeCallCount: Int { callCount(.upsertEventType) }
    /// How many times `upsertGeofence` was called: `callCount(.upsertGeofence)`.
    public var upsertGeofenceCallCount: Int { callCount(.upsertGeofence) }
    /// How many times `upsertPropertyDefinition` was called: `callCount(.upsertPropertyDefinition)`.
    public var upsertPropertyDefinitionCallCount: Int { callCount(.upsertPropertyDefinition) }
    /// How many times `deleteEvent` was called: `callCount(.deleteEvent)`.
    public var deleteEventCallCount: Int { callCount(.deleteEvent) }
    /// How many times `deleteEventType` was called: `callCount(.deleteEventType)`.
    public var deleteEventTypeCallCount: Int { callCount(.deleteEventType) }
    /// How many times `deleteGeofence` was called: `callCount(.deleteGeofence)`.
    public var deleteGeofenceCallCount: Int { callCount(.deleteGeofence) }
    /// How many times `deletePropertyDefinition` was called: `callCount(.deletePropertyDefinition)`.
    public var deletePropertyDefinitionCallCount: Int { callCount(.deletePropertyDefinition) }
    /// How many times `fetchPendingMutations` was called: `callCount(.fetchPendingMutations)`.
    public var fetchPendingMutationsCallCount: Int { callCount(.fetchPendingMutations) }
    /// How many times `insertPendingMutation` was called: `callCount(.insertPendingMutation)`.
    public var insertPendingMutationCallCount: Int { callCount(.insertPendingMutation) }
    /// How many times `deletePendingMutation` was called: `callCount(.deletePendingMutation)`.
    public var deletePendingMutationCallCount: Int { callCount(.deletePendingMutation) }
    /// How many times `save` was called: `callCount(.save)`.
    public var saveCallCount: Int { callCount(.save) }
    /// How many times `enqueueMutation` was called: `callCount(.enqueueMutation)`.
    public var enqueueMutationCallCount: Int { callCount(.enqueueMutation) }
    /// How many times `claimMutations` was called: `callCount(.claimMutations)`.
    public var claimMutationsCallCount: Int { callCount(.claimMutations) }
    /// How many times `completeMutation` was called: `callCount(.completeMutation)`.
    public var completeMutationCallCount: Int { callCount(.completeMutation) }
    /// How many times `recordMutationFailure` was called: `callCount(.recordMutationFailure)`.
    public var recordMutationFailureCallCount: Int { callCount(.recordMutationFailure) }
    /// How many times `saveEngineState` was called: `callCount(.saveEngineState)`.
    public var saveEngineStateCallCount: Int { callCount(.saveEngineState) }
    /// How many times `appendSyncHistory` was called: `callCount(.appendSyncHistory)`.
    public var appendSyncHistoryCallCount: Int { callCount(.appendSyncHistory) }

    // MARK: DataStoreProtocol

    @discardableResult
    public func upsert<Entity: LocalEntity>(
        id: String, placeholder: (Date) -> Entity, configure: (inout Entity) -> Void
    ) throws -> Entity {
        try call(.upsert(Entity.entityType)) { try $0.upsert(id: id, placeholder: placeholder, configure: configure) }
    }

    public func insert<Entity: LocalEntity>(_ entity: Entity) throws {
        try call(.insert(Entity.entityType)) { try $0.insert(entity) }
    }

    public func find<Entity: LocalEntity>(_ kind: Entity.Type, id: String) throws -> Entity? {
        try call(.find(Entity.entityType)) { try $0.find(kind, id: id) }
    }

    public func fetchAll<Entity: LocalEntity>(_ kind: Entity.Type) throws -> [Entity] {
        try call(.fetchAll(Entity.entityType)) { try $0.fetchAll(kind) }
    }

    public func delete(_ kind: MutationEntityType, id: String) throws {
        try call(.delete(kind)) { try $0.delete(kind, id: id) }
    }

    public func insertPendingMutation(_ mutation: PendingMutation) throws {
        try call(.insertPendingMutation) { try $0.insertPendingMutation(mutation) }
    }

    public func save() throws {
        try call(.save) { try $0.save() }
        locked { unitOpen = false }
    }

    public func enqueueMutation(
        entityType: MutationEntityType, operation: MutationOperation, entityId: String, payload: Data?, at: Date
    ) throws -> EnqueueResult {
        try call(.enqueueMutation) {
            try $0.enqueueMutation(
                entityType: entityType, operation: operation, entityId: entityId, payload: payload, at: at)
        }
    }

    public func claimMutations(ids: [String], at: Date) throws -> [PendingMutation] {
        try call(.claimMutations) { try $0.claimMutations(ids: ids, at: at) }
    }

    @discardableResult
    public func completeMutation(id: String, revision: Int?) throws -> Bool {
        try call(revision == nil ? .deletePendingMutation : .completeMutation) {
            try $0.completeMutation(id: id, revision: revision)
        }
    }

    public func recordMutationFailure(
        id: String, revision: Int, message: String, at: Date, maxAttempts: Int, deadLetterNow: Bool
    ) throws -> FailureResult {
        try call(.recordMutationFailure) {
            try $0.recordMutationFailure(
                id: id, revision: revision, message: message, at: at, maxAttempts: maxAttempts,
                deadLetterNow: deadLetterNow)
        }
    }

    public func reviveMutation(id: String, at: Date) throws -> Bool {
        try call(.reviveMutation) { try $0.reviveMutation(id: id, at: at) }
    }

    @discardableResult
    public func setSyncStatus(_ status: SyncStatus, entityType: MutationEntityType, id: String) throws -> Bool {
        try call(.setSyncStatus) { try $0.setSyncStatus(status, entityType: entityType, id: id) }
    }

    public func deleteEntities(_ type: MutationEntityType, keeping ids: Set<String>) throws -> Int {
        try call(.deleteEntities) { try $0.deleteEntities(type, keeping: ids) }
    }

    public func loadEngineState() throws -> EngineState { try call(.loadEngineState) { try $0.loadEngineState() } }

    public func saveEngineState(_ state: EngineState) throws {
        try call(.saveEngineState) { try $0.saveEngineState(state) }
    }

    public func appendSyncHistory(_ entry: SyncHistoryEntry, keepLast: Int) throws {
        try call(.appendSyncHistory) { try $0.appendSyncHistory(entry, keepLast: keepLast) }
    }

    public func fetchSyncHistory(limit: Int) throws -> [SyncHistoryEntry] {
        try call(.fetchSyncHistory) { try $0.fetchSyncHistory(limit: limit) }
    }

    public func fetchEvents(matching query: EventQuery) throws -> [Event] {
        try call(.fetchEvents) { try $0.fetchEvents(matching: query) }
    }

    public func countMutations() throws -> MutationCounts { try call(.countMutations) { try $0.countMutations() } }

    public func liveMutationRevisions() throws -> [String: Int] {
        try call(.liveMutationRevisions) { try $0.liveMutationRevisions() }
    }

    public func clearStagedEvents() throws { try call(.clearStagedEvents) { try $0.clearStagedEvents() } }

    @discardableResult
    public func stageEvents(_ events: [Event]) throws -> Int {
        try call(.stageEvents) { try $0.stageEvents(events) }
    }

    public func insertStagedEvents(excluding excluded: Set<String>) throws -> StagedInsert {
        try call(.insertStagedEvents) { try $0.insertStagedEvents(excluding: excluded) }
    }

    public func rewriteMutation(_ mutation: PendingMutation) throws {
        try call(.rewriteMutation) { try $0.rewriteMutation(mutation) }
    }

    public func markOwed(_ type: MutationEntityType, id: String, reason: OwedReason, after: String?) throws {
        try call(.markOwed) { try $0.markOwed(type, id: id, reason: reason, after: after) }
    }

    public func owedEntities() throws -> [OwedEntity] { try call(.owedEntities) { try $0.owedEntities() } }

    public func recordAcknowledged(_ versions: [AcknowledgedVersion]) throws {
        try call(.recordAcknowledged) { try $0.recordAcknowledged(versions) }
    }

    public func acknowledgedVersions(ids: Set<String>?, acknowledgedAfter: Date?) throws -> [AcknowledgedVersion] {
        try call(.acknowledgedVersions) { try $0.acknowledgedVersions(ids: ids, acknowledgedAfter: acknowledgedAfter) }
    }

    @discardableResult
    public func settleOwed(_ type: MutationEntityType, id: String, token: Int64?) throws -> Bool {
        try call(.settleOwed) { try $0.settleOwed(type, id: id, token: token) }
    }

    public func recordUnansweredBatch(_ batch: UnansweredBatch) throws {
        try call(.recordUnansweredBatch) { try $0.recordUnansweredBatch(batch) }
    }

    public func unansweredBatches() throws -> [UnansweredBatch] {
        try call(.unansweredBatches) { try $0.unansweredBatches() }
    }

    public func removeUnansweredBatch(key: String) throws {
        try call(.removeUnansweredBatch) { try $0.removeUnansweredBatch(key: key) }
    }

    public func fetchMutations(entityId: String?) throws -> [PendingMutation] {
        try call(entityId == nil ? .fetchPendingMutations : .fetchMutations) {
            try $0.fetchMutations(entityId: entityId)
        }
    }
}

/// Returns the one shared `MockDataStore` from every `makeDataStore()` and counts the calls.
public final class MockDataStoreFactory: DataStoreFactory, Sendable {
    /// The store every `makeDataStore()` returns.
    public let store: MockDataStore
    private let calls = Mutex(0)

    /// A factory over `store`.
    public init(store: MockDataStore) {
        self.store = store
    }

    /// A factory over a new store on a private in-memory database, its placeholder times from `clock`.
    public convenience init(clock: any SyncClock = ManualClock()) throws {
        self.init(store: try MockDataStore(clock: clock))
    }

    /// How many units of work were begun.
    public var makeDataStoreCallCount: Int { calls.withLock { $0 } }

    public func makeDataStore() -> any DataStoreProtocol {
        calls.withLock { $0 += 1 }
        store.beginUnitOfWork()
        return store
    }
}

extension MockDataStoreFactory: LocalSnapshotReading {
    /// Reads under the mock's lock, on a store of its own that is then dropped: no caller's unit of work can commit
    /// in between, and none is touched or counted.
    public func readSnapshot<Value>(_ body: (any DataStoreProtocol) throws -> Value) throws -> Value {
        try store.read(body)
    }
}

extension MockDataStoreFactory: LocalDataObserving {
    /// The twin of R13 on the mock's in-memory database: the observation sees every unit of work the mock's
    /// callers save; its own queries run on a store of their own, so they never touch the shared unit of work,
    /// and are not counted.
    public func observe<Value: Sendable & Equatable>(
        _ query: @escaping @Sendable (any DataStoreProtocol) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let store = store
        return store.storage.observe(reading: { try store.read(query) })
    }
}

extension MockDataStore.Method {
    /// The counter of a generic entity operation: the seed's name for that operation on that kind.
    static func upsert(_ kind: MutationEntityType) -> Self {
        kind.pick(.upsertEvent, .upsertEventType, .upsertGeofence, .upsertPropertyDefinition)
    }

    static func insert(_ kind: MutationEntityType) -> Self {
        kind.pick(.insertEvent, .insertEventType, .insertGeofence, .insertPropertyDefinition)
    }

    static func find(_ kind: MutationEntityType) -> Self {
        kind.pick(.findEvent, .findEventType, .findGeofence, .findPropertyDefinition)
    }

    static func fetchAll(_ kind: MutationEntityType) -> Self {
        kind.pick(.fetchAllEvents, .fetchAllEventTypes, .fetchAllGeofences, .fetchAllPropertyDefinitions)
    }

    static func delete(_ kind: MutationEntityType) -> Self {
        kind.pick(.deleteEvent, .deleteEventType, .deleteGeofence, .deletePropertyDefinition)
    }

}
