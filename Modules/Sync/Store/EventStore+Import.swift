import Foundation
import Models
import Protocols

/// Entities as they were exported elsewhere: ids, times and values kept.
public struct ImportBatch: Sendable, Equatable {
    /// The event types, each with its id.
    public var eventTypes: [EventType]
    /// The property definitions, each naming a type of the batch or of the database.
    public var propertyDefinitions: [PropertyDefinition]
    /// The geofences.
    public var geofences: [Geofence]
    /// The events, each naming a type of the batch or of the database.
    public var events: [Event]

    /// A batch; every list may be empty.
    public init(
        eventTypes: [EventType] = [], propertyDefinitions: [PropertyDefinition] = [], geofences: [Geofence] = [],
        events: [Event] = []
    ) {
        self.eventTypes = eventTypes
        self.propertyDefinitions = propertyDefinitions
        self.geofences = geofences
        self.events = events
    }
}

/// What an import did (or, dry, would do): per entity type, rows created and rows already present unchanged.
public struct ImportSummary: Sendable, Equatable {
    /// Rows written, each with its queued create.
    public var created: [MutationEntityType: Int] = [:]
    /// Rows the database already held with the same values: nothing written, nothing queued.
    public var unchanged: [MutationEntityType: Int] = [:]

    /// Nothing imported yet.
    public init() {}
}

extension EventStore {
    /// Writes `batch` in ONE unit of work, parents first. An entity whose id exists locally with the same values is
    /// left alone; a new one is created with its create mutation, like a local write, so it syncs — a create marked
    /// sent, since the server may hold the entity already. An id that
    /// exists with other values, or anything the validations of a local write refuse, throws: nothing is written.
    /// With `dryRun` every check runs and the counts come back, and the unit of work is rolled back. `progress` is
    /// told (entities done, entities in all) after every 1000 entities and at the end.
    public func importEntities(
        _ batch: ImportBatch, dryRun: Bool, progress: ((Int, Int) -> Void)? = nil
    ) async throws -> ImportSummary {
        let now = clock.now().roundedToMilliseconds
        let store = stores.makeDataStore()
        var summary = ImportSummary()
        let total =
            batch.eventTypes.count + batch.geofences.count + batch.propertyDefinitions.count + batch.events.count
        var done = 0
        /// Inserts each entity and queues its create, or counts it unchanged when an equal copy is here already.
        func place<Entity: LocalEntity & Equatable>(_ entities: [Entity]) throws {
            for var entity in entities {
                entity.syncStatus = .pending
                entity.normalize()
                try place(entity, existing: try Entity.find(id: entity.id, in: store))
                done += 1
                if done % 1000 == 0 || done == total { progress?(done, total) }
            }
        }
        func place<Entity: LocalEntity & Equatable>(_ entity: Entity, existing: Entity?) throws {
            if let existing {
                guard Self.sameValues(existing, entity) else {
                    throw EventStoreError.duplicate(
                        "\(Entity.entityType.rawValue.replacingOccurrences(of: "_", with: " ")) \(entity.id) "
                            + "already exists here with other values")
                }
                summary.unchanged[Entity.entityType, default: 0] += 1
                return
            }
            try restoring(Entity.entityType, id: entity.id)
            do {
                try insert(entity, store, now)
            } catch let error as EventStoreError {
                throw error.naming(Entity.entityType, id: entity.id)  // which of a file's rows it is
            }
            created.insert(entity.id)
            summary.created[Entity.entityType, default: 0] += 1
        }
        var engineState = try store.loadEngineState()
        // Read once: the entities with a queued delete, which an import of the same id restores.
        let queuedDeletes = Set(try store.fetchPendingMutations().filter { $0.operation == .delete }.map(\.entityId))
        var created: Set<String> = []
        /// A restore (api-v1 §7 *Restores*): an entity deleted here and imported again replaces its queued delete with
        /// a create — sent or not, the create brings it back on the server — and leaves the resurrection fence; one
        /// whose unsent create a delete cancelled is the import's again, not a delete to send (sync-engine §1.7).
        func restoring(_ type: MutationEntityType, id: String) throws {
            if queuedDeletes.contains(id) {
                for mutation in try store.fetchMutations(entityId: id) where mutation.operation == .delete {
                    try store.deletePendingMutation(mutation)
                }
            }
            engineState.pendingDeleteIds.remove(id)
            engineState.cancelledCreateIds.remove(id.lowercased())
        }
        try place(batch.eventTypes)
        try place(batch.geofences)
        try place(batch.propertyDefinitions)
        try place(batch.events)
        // An exported entity may be on the server already (a restore, another device's data): its create counts as
        // sent, so a delete before the next sync is pushed instead of cancelling the create (sync-engine §1.7) and
        // leaving the server's copy behind. Claimed once for the whole file.
        let creates = try store.fetchPendingMutations().filter {
            $0.operation == .create && created.contains($0.entityId)
        }
        _ = try store.claimMutations(ids: creates.map(\.id), at: now)
        try store.saveEngineState(engineState)
        if !dryRun {
            try store.save()
            await engine?.noteLocalChanges()
        }
        return summary  // a dry run's store is released unsaved: everything rolls back
    }

    /// Equal apart from the sync status, which says where a copy is, not what it is.
    static func sameValues<Entity: LocalEntity & Equatable>(_ lhs: Entity, _ rhs: Entity) -> Bool {
        var lhs = lhs
        var rhs = rhs
        lhs.syncStatus = .synced
        rhs.syncStatus = .synced
        return lhs == rhs
    }
}
