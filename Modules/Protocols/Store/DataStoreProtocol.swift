import Foundation
import Models

/// One unit of work on the local database (sync-engine §2.4–§2.6): generic entity operations, the outbox, the
/// engine's own records and the queries applications read. The seed's 29 named methods are conveniences over them,
/// in an extension, written once for every store.
///
/// A store is one SQLite transaction. It begins at the first operation and sees its own writes; `save()`
/// commits atomically and a later operation begins a new transaction. A store released, or whose operation
/// threw, without `save()` rolls back everything since its last `save()`.
///
/// Not `Sendable`: create it inside the isolation domain that uses it (through a `DataStoreFactory`), use it
/// within one synchronous stretch, never keep it across an `await`, and never store it in a property.
public protocol DataStoreProtocol {
    // MARK: Entities (generic over the four kinds; the seed's named methods are conveniences, below)

    /// Applies `configure` to the row `id`, inserting `placeholder(now)` first when it is missing (sync-engine §2.4).
    /// The row ends `synced`; a row `configure` leaves as it was is not written again.
    @discardableResult
    func upsert<Entity: LocalEntity>(
        id: String, placeholder: (Date) -> Entity, configure: (inout Entity) -> Void
    ) throws -> Entity

    /// Inserts a new local entity exactly as given, its sync status included, in one statement: no read first, and
    /// never a `synced` row flipped to `pending`. Throws `DataStoreError.alreadyExists` when the id is taken.
    func insert<Entity: LocalEntity>(_ entity: Entity) throws

    /// The row `id` of that kind, or nil.
    func find<Entity: LocalEntity>(_ kind: Entity.Type, id: String) throws -> Entity?

    /// Every row of that kind, in no particular order.
    func fetchAll<Entity: LocalEntity>(_ kind: Entity.Type) throws -> [Entity]

    /// Deletes the row with the local cascade of sync-engine §1.4; a missing id is a no-op, and mutations are never
    /// touched. An event type takes its events and property definitions with it, except children that have a create
    /// mutation, and clears the geofence entry/exit ids that name it; a geofence clears `geofence_id` on its events.
    func delete(_ kind: MutationEntityType, id: String) throws

    // MARK: Pending mutations

    /// Inserts the row as given, without coalescing (`seq` 0 takes the next value). A second row with the same
    /// entity type, entity id and operation throws `DataStoreError.duplicateMutation`.
    func insertPendingMutation(_ mutation: PendingMutation) throws

    // MARK: Persistence

    /// Commits the unit of work atomically. Without an open transaction it does nothing.
    func save() throws

    // MARK: DS1–DS11

    /// DS1. Queues a local change with the coalescing rules of sync-engine §1.7, stamping changes with `at`.
    /// Throws `DataStoreError.invalidSequence` or `.entityDeleted` for sequences the table forbids.
    func enqueueMutation(
        entityType: MutationEntityType, operation: MutationOperation, entityId: String, payload: Data?, at: Date
    ) throws -> EnqueueResult

    /// DS2. Sets `first_sent_at = at` where it is nil on the live rows among `ids` and returns them as they will
    /// be sent, in the order of `ids`. Ids that are gone or no longer live are left out.
    func claimMutations(ids: [String], at: Date) throws -> [PendingMutation]

    /// DS3. Deletes the mutation, only if its revision is still `revision` when one is given; false leaves a newer
    /// revision (or nothing) queued. Without a revision it removes whatever is queued under `id`
    /// (`deletePendingMutation(_:)`).
    @discardableResult
    func completeMutation(id: String, revision: Int?) throws -> Bool

    /// DS4. Counts one failure (`attempts + 1`, `last_error`, `last_attempt_at`), dead-lettering the mutation and
    /// marking its entity `failed` when `attempts ≥ maxAttempts` or `deadLetterNow`. Skipped when the row is gone
    /// or its revision changed.
    func recordMutationFailure(
        id: String, revision: Int, message: String, at: Date, maxAttempts: Int, deadLetterNow: Bool
    ) throws -> FailureResult

    /// DS5. Turns a dead letter live again: `attempts` 0, `last_error` nil, a new key, `revision + 1`. A create's
    /// payload is rebuilt from the entity's current row and absorbs an update of the same entity; a revived
    /// create makes its entity `pending`. False when `id` is not a dead letter.
    func reviveMutation(id: String, at: Date) throws -> Bool

    /// DS6. Sets an entity's `sync_status`; false when no row has that id (nothing is written).
    @discardableResult
    func setSyncStatus(_ status: SyncStatus, entityType: MutationEntityType, id: String) throws -> Bool

    /// DS7. Deletes, without cascading, every row of one table except `ids`. Returns the number deleted.
    func deleteEntities(_ type: MutationEntityType, keeping ids: Set<String>) throws -> Int

    /// DS8. The engine state row of sync-engine §1.9, or defaults when none was saved.
    func loadEngineState() throws -> EngineState

    /// DS9. Writes the engine state row.
    func saveEngineState(_ state: EngineState) throws

    /// DS10. Inserts a history row and trims the table to the newest `keepLast` rows.
    func appendSyncHistory(_ entry: SyncHistoryEntry, keepLast: Int) throws

    /// DS11. History rows, newest first.
    func fetchSyncHistory(limit: Int) throws -> [SyncHistoryEntry]

    /// DS15. Writes a queued mutation's payload, key, state, attempts, last error, revision, `updated_at` and
    /// unsettled send (`sentKey`, `sentPayload`) as given, matched by `id`; a missing row is a no-op. For the queue
    /// rules outside coalescing (R7, R8) and the push's settled sends.
    func rewriteMutation(_ mutation: PendingMutation) throws

    // MARK: DS12–DS14: owed read-backs (sync-engine R4)

    /// DS12. Makes the entity owed (again): inserts it, or gives its row a new token. With `after`, its read-back
    /// waits while that entity has a queued mutation — unless it was already owed without one, which stays.
    func markOwed(_ type: MutationEntityType, id: String, reason: OwedReason, after: String?) throws

    /// DS13. Every owed entity, oldest debt first.
    func owedEntities() throws -> [OwedEntity]

    /// DS14. Ends the entity's debt: only while its token is still `token` (a read-back), or whatever it is when
    /// `token` is nil (an applied entry). True when a row was removed.
    @discardableResult
    func settleOwed(_ type: MutationEntityType, id: String, token: Int64?) throws -> Bool

    // MARK: Acknowledged versions (R15)

    /// DS20. Records what the server acknowledged: each (type, id) keeps its latest acknowledgment (a later time
    /// replaces an earlier one, never the reverse). Rolls back with its unit of work.
    func recordAcknowledged(_ versions: [AcknowledgedVersion]) throws

    /// DS21. The acknowledged versions, oldest first: of `ids` only when given, and only those acknowledged after
    /// `acknowledgedAfter` when given (a pull's check that its feed showed every version since its start, R15).
    func acknowledgedVersions(ids: Set<String>?, acknowledgedAfter: Date?) throws -> [AcknowledgedVersion]

    // MARK: Unanswered batches (sync-engine §4.7 step 2)

    /// Keeps a sent event-create batch until its answer is recorded; a batch with the same key is replaced.
    func recordUnansweredBatch(_ batch: UnansweredBatch) throws

    /// The batches sent and not answered yet, oldest first.
    func unansweredBatches() throws -> [UnansweredBatch]

    /// Forgets the batch: its answer's outcomes are recorded. A missing key is a no-op.
    func removeUnansweredBatch(key: String) throws

    // MARK: Queries for applications (Q1–Q3)

    /// Q1. Events matching `query`, `timestamp` descending then `id` descending.
    func fetchEvents(matching query: EventQuery) throws -> [Event]

    /// Q2. Number of live (`pending`) and dead (`failed`) mutations.
    func countMutations() throws -> MutationCounts

    /// Q3. Every mutation, live and dead, in queue order `(created_at, seq)`: of one entity when `entityId` is given
    /// (`fetchPendingMutations()` is every one).
    func fetchMutations(entityId: String?) throws -> [PendingMutation]

    /// Q4. The revision of every live mutation, by id, read without payloads: what live mode watches for a write it
    /// has not pushed yet (R12), after every commit.
    func liveMutationRevisions() throws -> [String: Int]

    // MARK: Bootstrap staging (R11, S82)

    /// Empties the staging area: where a bootstrap keeps the listing's events as their pages arrive, outside the
    /// entity tables, so that local data changes only once the snapshot is complete (S82) and the snapshot never
    /// has to fit in memory. The area belongs to this process's connection and is gone when the process ends.
    func clearStagedEvents() throws

    /// Stages server events as the rows a bootstrap writes (ids lowercase, `synced`), beside those staged before.
    /// An id already staged keeps its first copy (a row that moved during a keyset listing). Returns how many were
    /// new. Rolls back with the unit of work, like any write.
    @discardableResult
    func stageEvents(_ events: [Event]) throws -> Int

    /// Writes every staged event whose id is not in `excluded` to the event table as staged, replacing a row of
    /// the same id, in one statement, and returns how many, with the staged copies of the excluded ids (those
    /// staged), which the caller writes itself. What a bootstrap does for the rows no fence, rebase or debt concerns,
    /// without reading them into memory.
    func insertStagedEvents(excluding excluded: Set<String>) throws -> StagedInsert
}

/// What `insertStagedEvents(excluding:)` did: the rows it wrote, and the staged events it left to the caller.
public struct StagedInsert: Sendable, Hashable {
    /// How many staged events it wrote as rows.
    public var inserted: Int
    /// The staged copies of the excluded ids, by id.
    public var excluded: [String: Event]

    /// What a store's insert reports: the count it wrote and the copies it left out.
    public init(inserted: Int, excluded: [String: Event]) {
        self.inserted = inserted
        self.excluded = excluded
    }
}

/// A filter for `fetchEvents(matching:)`. Nil fields do not filter.
public struct EventQuery: Sendable, Hashable {
    /// Events of this type.
    public var eventTypeId: String?
    /// Inclusive lower bound on `timestamp`.
    public var since: Date?
    /// Inclusive upper bound on `timestamp`.
    public var until: Date?
    /// Events whose stored `sync_status` is this one (sync-engine §1.2).
    public var syncStatus: SyncStatus?
    /// At most this many events, the first ones in the chosen order.
    public var limit: Int?
    /// Events that name this geofence.
    public var geofenceId: String?
    /// Oldest first (by time, then id) instead of newest first.
    public var oldestFirst: Bool
    /// Keyset paging: only the events that come after this one in the chosen order, so a long listing is read a
    /// page at a time without skipping rows.
    public var after: EventPosition?

    /// A query; every filter left nil lets every event through, newest first.
    public init(
        eventTypeId: String? = nil, since: Date? = nil, until: Date? = nil, syncStatus: SyncStatus? = nil,
        limit: Int? = nil, geofenceId: String? = nil, oldestFirst: Bool = false, after: EventPosition? = nil
    ) {
        self.eventTypeId = eventTypeId
        self.since = since
        self.until = until
        self.syncStatus = syncStatus
        self.limit = limit
        self.geofenceId = geofenceId
        self.oldestFirst = oldestFirst
        self.after = after
    }
}

/// Where an event stands in a listing: its time, then its id.
public struct EventPosition: Sendable, Hashable {
    /// The event's `timestamp`, the first key of the order.
    public var timestamp: Date
    /// The event's id, which breaks ties between events of one instant.
    public var id: String

    /// The position of an event with this time and id.
    public init(timestamp: Date, id: String) {
        self.timestamp = timestamp
        self.id = id
    }

    /// The position of `event`: where the next page of a listing that ended with it begins.
    public init(_ event: Event) { self.init(timestamp: event.timestamp, id: event.id) }
}

/// Sizes of the outbox: `pending` live mutations and `failed` dead letters.
public struct MutationCounts: Sendable, Hashable {
    /// Live mutations: queued, waiting to be sent or sent without an answer yet.
    public var pending: Int
    /// Dead letters: mutations the server refused, kept until retried or discarded (sync-engine §6.3).
    public var failed: Int

    /// The two sizes.
    public init(pending: Int, failed: Int) {
        self.pending = pending
        self.failed = failed
    }
}

extension DataStoreProtocol {
    /// Sets the row's `sync_status` to `synced`; a missing row throws `DataStoreError.notFound`, having written
    /// nothing.
    public func markSynced(_ kind: MutationEntityType, id: String) throws {
        guard try setSyncStatus(.synced, entityType: kind, id: id) else { throw DataStoreError.notFound(kind, id: id) }
    }

    /// Every mutation, live and dead, in queue order `(created_at, seq)`.
    public func fetchPendingMutations() throws -> [PendingMutation] { try fetchMutations(entityId: nil) }

    /// Removes the mutation with this `id`, whatever its revision; a missing row is a no-op.
    public func deletePendingMutation(_ mutation: PendingMutation) throws {
        try completeMutation(id: mutation.id, revision: nil)
    }

    /// The acknowledged versions, of `ids` only when given, oldest first.
    public func acknowledgedVersions(ids: Set<String>?) throws -> [AcknowledgedVersion] {
        try acknowledgedVersions(ids: ids, acknowledgedAfter: nil)
    }

    /// DS12 for a debt that waits for nothing else.
    public func markOwed(_ type: MutationEntityType, id: String, reason: OwedReason) throws {
        try markOwed(type, id: id, reason: reason, after: nil)
    }
}
