import Foundation
import Models
import Protocols

// Local writes (sync-engine §1.8): the row(s) and the mutation in ONE unit of work.
extension EventStore {
    // MARK: Event types

    /// Creates an event type with a new id and queues its create; a name another type has throws `duplicate`.
    @discardableResult
    public func createEventType(
        name: String, color: String = EventType.defaultColor, icon: String = EventType.defaultIcon
    )
        async throws -> EventType
    {
        try await write { store, now in
            let type = EventType(id: newId(now), name: name, color: color, icon: icon, createdAt: now)
            try insert(type, store, now)
            return type
        }
    }

    /// Applies `edit` to the event type `id` and queues the fields it changed (R1); an edit that changes nothing
    /// writes and queues nothing. Returns the row as written.
    @discardableResult
    public func updateEventType(id: String, _ edit: (inout EventType) throws -> Void) async throws -> EventType {
        try await write { store, now in try update(id, store, now, edit: edit) }
    }

    /// Deletes the type with its events and property definitions. Their mutations are removed first and no child
    /// delete is queued — the server deletes the children with their type — except for events a queued update moved
    /// into the type, which the server still holds under their old type: they get a delete of their own (R7).
    /// Queued payloads stop naming the type (R8).
    public func deleteEventType(id: String) async throws {
        try await write { store, now in try removeEventType(id: id, store, now) }
    }

    /// `deleteEventType` inside a unit of work already open.
    func removeEventType(id: String, _ store: any DataStoreProtocol, _ now: Date) throws {
        guard try store.findEventType(id: id) != nil else { throw EventStoreError.notFound(.eventType, id: id) }
        let moved = Set(try ParentRemoval.deleteEventsMoved(into: id, store, at: now))
        let events = try store.fetchEvents(matching: EventQuery(eventTypeId: id)).map(\.id)
        let definitions = try store.fetchAllPropertyDefinitions().filter { $0.eventTypeId == id }.map(\.id)
        let children = Set(events + definitions)
        let queue = try store.fetchPendingMutations()
        let created = Set(queue.filter { $0.operation == .create }.map(\.entityId))
        for mutation in queue where children.contains(mutation.entityId) && !moved.contains(mutation.entityId) {
            try store.deletePendingMutation(mutation)
        }
        // What the local cascade removes is owed after the type's delete: should that delete be discarded or
        // withdrawn by a restore, the children come back from the server; once it goes through, the server's
        // cascade has done the same and the debts are settled.
        for event in events where !created.contains(event) && !moved.contains(event) {
            try store.markOwed(.event, id: event, reason: .cascaded, after: id)
        }
        for definition in definitions where !created.contains(definition) {
            try store.markOwed(.propertyDefinition, id: definition, reason: .cascaded, after: id)
        }
        for fence in try store.fetchAllGeofences() where fence.eventTypeEntryId == id || fence.eventTypeExitId == id {
            try store.markOwed(.geofence, id: fence.id, reason: .cascaded, after: id)
        }
        try store.deleteEventType(id: id)
        try ParentRemoval.parentRemoved(.eventType, id: id, store, at: now)
        try store.enqueueLocalDelete(.eventType, id: id, at: now)
    }

    // MARK: Events

    /// Creates an event of `eventTypeId` at `timestamp`; `configure` sets the other fields.
    @discardableResult
    public func createEvent(
        eventTypeId: String, timestamp: Date, configure: (inout Event) -> Void = { _ in }
    )
        async throws -> Event
    {
        try await write { store, now in
            try createEvent(eventTypeId: eventTypeId, timestamp: timestamp, store, now, configure: configure)
        }
    }

    func createEvent(
        eventTypeId: String, timestamp: Date, _ store: any DataStoreProtocol, _ now: Date,
        configure: (inout Event) -> Void
    ) throws -> Event {
        var event = Event(id: newId(now), eventTypeId: eventTypeId, timestamp: timestamp)
        configure(&event)
        event.normalize()
        event.syncStatus = .pending
        try insert(event, store, now)
        return event
    }

    /// Applies `edit` to the event `id` and queues the fields it changed (R1); returns the row as written.
    @discardableResult
    public func updateEvent(id: String, _ edit: (inout Event) throws -> Void) async throws -> Event {
        try await write { store, now in try update(id, store, now, edit: edit) }
    }

    /// Deletes the event and queues its delete, or cancels its unsent create (sync-engine §1.7).
    public func deleteEvent(id: String) async throws {
        try await write { store, now in
            guard try store.findEvent(id: id) != nil else { throw EventStoreError.notFound(.event, id: id) }
            try store.enqueueLocalDelete(.event, id: id, at: now)
            try store.deleteEvent(id: id)
        }
    }

    // MARK: Geofences

    /// Creates a geofence with a new id and queues its create; `configure` sets the other fields. A name another
    /// geofence has throws `duplicate`.
    @discardableResult
    public func createGeofence(
        name: String, latitude: Double, longitude: Double, configure: (inout Geofence) -> Void = { _ in }
    ) async throws -> Geofence {
        try await write { store, now in
            var fence = Geofence(id: newId(now), name: name, latitude: latitude, longitude: longitude, createdAt: now)
            configure(&fence)
            fence.syncStatus = .pending
            try insert(fence, store, now)
            return fence
        }
    }

    /// Applies `edit` to the geofence `id` and queues the fields it changed (R1); returns the row as written.
    @discardableResult
    public func updateGeofence(id: String, _ edit: (inout Geofence) throws -> Void) async throws -> Geofence {
        try await write { store, now in try update(id, store, now, edit: edit) }
    }

    /// Deletes the geofence; its events lose their `geofence_id` locally, as on the server, and queued payloads stop
    /// naming it (R8).
    public func deleteGeofence(id: String) async throws {
        try await write { store, now in
            guard try store.findGeofence(id: id) != nil else { throw EventStoreError.notFound(.geofence, id: id) }
            try store.enqueueLocalDelete(.geofence, id: id, at: now)
            for event in try store.fetchEvents(matching: EventQuery(geofenceId: id)) {
                try store.markOwed(.event, id: event.id, reason: .cascaded, after: id)
            }
            try store.deleteGeofence(id: id)
            try ParentRemoval.parentRemoved(.geofence, id: id, store, at: now)
        }
    }

    // MARK: Property definitions

    /// Creates a definition of `key` on the event type `eventTypeId` with a new id and queues its create; a key the
    /// type already has throws `duplicate`.
    @discardableResult
    public func createPropertyDefinition(
        eventTypeId: String, key: String, label: String, type: PropertyType,
        configure: (inout PropertyDefinition) -> Void = { _ in }
    ) async throws -> PropertyDefinition {
        try await write { store, now in
            var definition = PropertyDefinition(
                id: newId(now), eventTypeId: eventTypeId, key: key, label: label, propertyType: type, createdAt: now,
                updatedAt: now)
            configure(&definition)
            definition.syncStatus = .pending
            try insert(definition, store, now)
            return definition
        }
    }

    /// Applies `edit` to the definition `id` and queues the fields it changed (R1); returns the row as written.
    @discardableResult
    public func updatePropertyDefinition(
        id: String, _ edit: (inout PropertyDefinition) throws -> Void
    ) async throws
        -> PropertyDefinition
    {
        try await write { store, now in try update(id, store, now, edit: edit) }
    }

    /// Deletes the definition and queues its delete, or cancels its unsent create (sync-engine §1.7).
    public func deletePropertyDefinition(id: String) async throws {
        try await write { store, now in
            guard try store.findPropertyDefinition(id: id) != nil else {
                throw EventStoreError.notFound(.propertyDefinition, id: id)
            }
            try store.enqueueLocalDelete(.propertyDefinition, id: id, at: now)
            try store.deletePropertyDefinition(id: id)
        }
    }

    // MARK: Shared

    /// Applies a local edit and queues what it changed (R1: an edit that changes nothing writes nothing).
    func update<Entity: LocalEntity>(
        _ id: String, _ store: any DataStoreProtocol, _ now: Date, edit: (inout Entity) throws -> Void
    ) throws -> Entity {
        guard let before = try Entity.find(id: id, in: store) else {
            throw EventStoreError.notFound(Entity.entityType, id: id)
        }
        var entity = before
        try edit(&entity)
        entity.settleEdit(of: before)
        entity.normalize()
        guard let patch = try MutationPayload.patch(from: before, to: entity) else { return before }
        entity.stampUpdate(at: now)
        try entity.validate(in: store)
        try entity.replace(in: store)
        try store.setSyncStatus(entity.syncStatus, entityType: Entity.entityType, id: id)
        _ = try store.enqueueMutation(
            entityType: Entity.entityType, operation: .update, entityId: id, payload: patch, at: now)
        return entity
    }

    /// Checks a new row (`Validation`), writes it as `pending` (one INSERT) and queues its create.
    func insert<Entity: LocalEntity>(_ entity: Entity, _ store: any DataStoreProtocol, _ now: Date) throws {
        try entity.validate(in: store)
        var entity = entity
        entity.syncStatus = .pending
        try entity.insertNew(into: store)
        _ = try store.enqueueMutation(
            entityType: Entity.entityType, operation: .create, entityId: entity.id,
            payload: try MutationPayload.create(entity),
            at: now)
    }
}

/// The four entities, as `EventStore.insert` and `EventStore.update` write them.
protocol LocalEntity: OutboxEntity, Identifiable where ID == String {
    var id: String { get set }
    var syncStatus: SyncStatus { get set }
    static func find(id: String, in store: any DataStoreProtocol) throws -> Self?
    /// Inserts the row exactly as it is (a local create).
    func insertNew(into store: any DataStoreProtocol) throws
    /// Overwrites the row with this value (a local edit).
    func replace(in store: any DataStoreProtocol) throws
    /// The checks of a local write (`Validation`).
    func validate(in store: any DataStoreProtocol) throws
    /// What a store keeps of the values a caller set: an event's times to whole milliseconds.
    mutating func normalize()
    /// Undoes what an edit may not change: the id, a definition's type.
    mutating func settleEdit(of before: Self)
    /// Stamps an edit that changed something, where the entity records when it was edited.
    mutating func stampUpdate(at now: Date)
}

extension LocalEntity {
    mutating func normalize() {}
    mutating func settleEdit(of before: Self) { id = before.id }
    mutating func stampUpdate(at now: Date) {}
}

extension EventType: LocalEntity {
    static func find(id: String, in store: any DataStoreProtocol) throws -> Self? { try store.findEventType(id: id) }
    func insertNew(into store: any DataStoreProtocol) throws { try store.insertEventType(self) }
    func replace(in store: any DataStoreProtocol) throws { try store.upsertEventType(id: id) { $0 = self } }
    func validate(in store: any DataStoreProtocol) throws {
        try Validation.check(self, among: try store.fetchAllEventTypes())
    }
}

extension Event: LocalEntity {
    static func find(id: String, in store: any DataStoreProtocol) throws -> Self? { try store.findEvent(id: id) }
    func insertNew(into store: any DataStoreProtocol) throws { try store.insertEvent(self) }
    func replace(in store: any DataStoreProtocol) throws { try store.upsertEvent(id: id) { $0 = self } }
    func validate(in store: any DataStoreProtocol) throws { try Validation.check(self, store) }
    mutating func normalize() {
        timestamp = timestamp.roundedToMilliseconds
        self.endDate = self.endDate?.roundedToMilliseconds
    }
}

extension Geofence: LocalEntity {
    static func find(id: String, in store: any DataStoreProtocol) throws -> Self? { try store.findGeofence(id: id) }
    func insertNew(into store: any DataStoreProtocol) throws { try store.insertGeofence(self) }
    func replace(in store: any DataStoreProtocol) throws { try store.upsertGeofence(id: id) { $0 = self } }
    func validate(in store: any DataStoreProtocol) throws { try Validation.check(self, store) }
}

extension PropertyDefinition: LocalEntity {
    static func find(id: String, in store: any DataStoreProtocol) throws -> Self? {
        try store.findPropertyDefinition(id: id)
    }
    func insertNew(into store: any DataStoreProtocol) throws { try store.insertPropertyDefinition(self) }
    func replace(in store: any DataStoreProtocol) throws {
        try store.upsertPropertyDefinition(id: id, eventTypeId: eventTypeId) { $0 = self }
    }
    func validate(in store: any DataStoreProtocol) throws { try Validation.check(self, store) }
    mutating func settleEdit(of before: PropertyDefinition) {
        id = before.id
        eventTypeId = before.eventTypeId
    }
    mutating func stampUpdate(at now: Date) { updatedAt = now }
}

extension DataStoreProtocol {
    /// Queues the delete of a local write (sync-engine §1.7). One that cancels an unsent create sends nothing, and
    /// its id stays in `EngineState.cancelledCreateIds` until a completed pull: a copy of this database put back from
    /// before the create's send counts it unsent, so the server may hold it.
    func enqueueLocalDelete(_ type: MutationEntityType, id: String, at now: Date) throws {
        let result = try enqueueMutation(entityType: type, operation: .delete, entityId: id, payload: nil, at: now)
        guard result == .cancelled else { return }
        var engineState = try loadEngineState()
        engineState.cancelledCreateIds.insert(id.lowercased())
        try saveEngineState(engineState)
    }
}
