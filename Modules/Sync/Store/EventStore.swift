import Foundation
import Models
import Protocols

/// The application-facing store (the seeds' EventStore without the UI): local reads, and local writes that
/// commit the entity and its outbox mutation together (sync-engine §1.8). It never calls the network; run
/// `engine.performSync()` when you want to sync.
public final class EventStore: Sendable {
    /// The engine whose snapshot follows local writes; nil for a store that only reads and writes local data.
    public let engine: SyncEngine?
    let stores: any DataStoreFactory
    let clock: any SyncClock
    /// Entity ids from this store's clock (S1), increasing while that clock does not go back.
    private let ids = UUIDv7.Generator()

    /// A store whose writes show at once in `engine`'s snapshot (queue sizes).
    public init(engine: SyncEngine, dataStoreFactory: any DataStoreFactory, clock: any SyncClock = SystemClock()) {
        self.engine = engine
        self.stores = dataStoreFactory
        self.clock = clock
    }

    /// A store over local data alone, for a process that does not sync (a CLI command, an importer): no engine is
    /// built and a write is one unit of work, nothing more.
    public init(dataStoreFactory: any DataStoreFactory, clock: any SyncClock = SystemClock()) {
        self.engine = nil
        self.stores = dataStoreFactory
        self.clock = clock
    }

    /// Runs `body` on a fresh store and commits it.
    func unitOfWork<Result>(_ body: (any DataStoreProtocol) throws -> Result) throws -> Result {
        let store = stores.makeDataStore()
        let result = try body(store)
        try store.save()
        return result
    }

    /// Commits a local change, then lets the engine's snapshot show the new queue sizes.
    func write<Result>(_ body: (any DataStoreProtocol, Date) throws -> Result) async throws -> Result {
        let now = clock.now().roundedToMilliseconds
        let result = try unitOfWork { try body($0, now) }
        await engine?.noteLocalChanges()
        return result
    }

    func newId(_ now: Date) -> String { ids.generate(at: now) }

    // MARK: Reads

    /// Event types by name.
    public func eventTypes() throws -> [EventType] { Self.byName(try unitOfWork { try $0.fetchAllEventTypes() }) }

    static func byName(_ types: [EventType]) -> [EventType] { types.sorted { ($0.name, $0.id) < ($1.name, $1.id) } }

    /// The event type `id`; nil when this database has none.
    public func eventType(id: String) throws -> EventType? { try unitOfWork { try $0.findEventType(id: id) } }

    /// Events matching `query`: newest first, or oldest first; a page of a long listing with `limit` and `after`.
    public func events(_ query: EventQuery = EventQuery()) throws -> [Event] {
        try unitOfWork { try $0.fetchEvents(matching: query) }
    }

    /// The event `id`; nil when this database has none.
    public func event(id: String) throws -> Event? { try unitOfWork { try $0.findEvent(id: id) } }

    /// Geofences by name.
    public func geofences() throws -> [Geofence] { Self.byName(try unitOfWork { try $0.fetchAllGeofences() }) }

    static func byName(_ geofences: [Geofence]) -> [Geofence] {
        geofences.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// The geofence `id`; nil when this database has none.
    public func geofence(id: String) throws -> Geofence? { try unitOfWork { try $0.findGeofence(id: id) } }

    /// The definitions of one type, by display order.
    public func propertyDefinitions(eventTypeId: String) throws -> [PropertyDefinition] {
        Self.definitions(of: eventTypeId, among: try unitOfWork { try $0.fetchAllPropertyDefinitions() })
    }

    static func definitions(of eventTypeId: String, among all: [PropertyDefinition]) -> [PropertyDefinition] {
        all.filter { $0.eventTypeId == eventTypeId }
            .sorted { ($0.displayOrder, $0.createdAt, $0.id) < ($1.displayOrder, $1.createdAt, $1.id) }
    }

    /// The property definition `id`; nil when this database has none.
    public func propertyDefinition(id: String) throws -> PropertyDefinition? {
        try unitOfWork { try $0.findPropertyDefinition(id: id) }
    }

    /// The outbox rows of one entity, in queue order.
    public func mutations(of entityId: String) throws -> [PendingMutation] {
        try unitOfWork { try $0.fetchMutations(entityId: entityId) }
    }

    /// What the queue says of each entity it holds a change for: `failed` while a dead letter holds it, else
    /// `pending` (the server does not have it yet). An entity absent from the answer has nothing queued. The
    /// stored `sync_status` keeps sync-engine §1.3's rule, under which a local edit of a synced entity leaves it
    /// `synced`; a user asking what the server lacks reads this (trendyctl §1.3).
    /// With `ids`, only those entities are looked up (a listing's page reads a few rows of the queue, not all of it).
    public func queuedStatuses(of ids: Set<String>? = nil) throws -> [String: SyncStatus] {
        let queue = try unitOfWork { store in
            guard let ids else { return try store.fetchPendingMutations() }
            return try ids.flatMap { try store.fetchMutations(entityId: $0) }
        }
        var statuses: [String: SyncStatus] = [:]
        for mutation in queue {
            statuses[mutation.entityId] = mutation.isLive && statuses[mutation.entityId] != .failed ? .pending : .failed
        }
        return statuses
    }
}

/// Why a local write was refused. Nothing was written.
public enum EventStoreError: Error, Equatable, CustomStringConvertible {
    /// No entity of that kind has the id in this database.
    case notFound(MutationEntityType, id: String)
    /// A field's value breaks a rule of sync-engine §1.6; `reason` says which.
    case invalid(field: String, reason: String)
    /// Another local entity already holds the name, key or timestamp; the server would refuse it too.
    case duplicate(String)

    /// The same refusal, saying which entity it is about (an import's row among thousands).
    func naming(_ type: MutationEntityType, id: String) -> EventStoreError {
        let entity = "\(type.rawValue.replacingOccurrences(of: "_", with: " ")) \(id)"
        switch self {
        case .notFound: return self
        case .invalid(let field, let reason): return .invalid(field: "\(entity): \(field)", reason: reason)
        case .duplicate(let message): return .duplicate("\(entity): \(message)")
        }
    }

    public var description: String {
        switch self {
        case .notFound(let type, let id): "no \(type.rawValue.replacingOccurrences(of: "_", with: " ")) \(id)"
        case .invalid(let field, let reason): "\(field) \(reason)"
        case .duplicate(let message): message
        }
    }
}
