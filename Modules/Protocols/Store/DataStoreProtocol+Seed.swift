import Foundation
import Models

// The seed's named methods (sync-engine §2.4), written once over the generic requirements: every store has them,
// and none implements them again.

extension DataStoreProtocol {
    // MARK: Upsert (server data only)

    /// Applies `configure` to the event `id`, inserting a placeholder first when it is missing
    /// (`event_type_id = ""`, now, defaults). The row ends `synced`.
    @discardableResult
    public func upsertEvent(id: String, configure: (inout Event) -> Void) throws -> Event {
        try upsert(id: id, placeholder: { Event.placeholder(id: id, at: $0) }, configure: configure)
    }

    /// Applies `configure` to the event type `id`, inserting the `"Placeholder"` row first when missing.
    /// The row ends `synced`.
    @discardableResult
    public func upsertEventType(id: String, configure: (inout EventType) -> Void) throws -> EventType {
        try upsert(id: id, placeholder: { EventType.placeholder(id: id, at: $0) }, configure: configure)
    }

    /// Applies `configure` to the geofence `id`, inserting the placeholder row first when missing.
    /// The row ends `synced`.
    @discardableResult
    public func upsertGeofence(id: String, configure: (inout Geofence) -> Void) throws -> Geofence {
        try upsert(id: id, placeholder: { Geofence.placeholder(id: id, at: $0) }, configure: configure)
    }

    /// Applies `configure` to the property definition `id`, inserting a placeholder with `eventTypeId` first
    /// when missing. The row ends `synced`.
    @discardableResult
    public func upsertPropertyDefinition(
        id: String, eventTypeId: String, configure: (inout PropertyDefinition) -> Void
    ) throws -> PropertyDefinition {
        try upsert(
            id: id, placeholder: { PropertyDefinition.placeholder(id: id, eventTypeId: eventTypeId, at: $0) },
            configure: configure)
    }

    // MARK: Insert (local creates)

    /// `insert(_:)` for an event.
    public func insertEvent(_ event: Event) throws { try insert(event) }

    /// `insert(_:)` for an event type.
    public func insertEventType(_ eventType: EventType) throws { try insert(eventType) }

    /// `insert(_:)` for a geofence.
    public func insertGeofence(_ geofence: Geofence) throws { try insert(geofence) }

    /// `insert(_:)` for a property definition.
    public func insertPropertyDefinition(_ definition: PropertyDefinition) throws { try insert(definition) }

    // MARK: Delete (with the local cascade of sync-engine §1.4)

    /// Deletes the event; a missing id is a no-op.
    public func deleteEvent(id: String) throws { try delete(.event, id: id) }

    /// Deletes the event type with its cascade (`delete(_:id:)`).
    public func deleteEventType(id: String) throws { try delete(.eventType, id: id) }

    /// Deletes the geofence and clears `geofence_id` on its events.
    public func deleteGeofence(id: String) throws { try delete(.geofence, id: id) }

    /// Deletes the property definition; a missing id is a no-op.
    public func deletePropertyDefinition(id: String) throws { try delete(.propertyDefinition, id: id) }

    // MARK: Bulk delete (no cascade)

    /// Deletes every event row.
    public func deleteAllEvents() throws { _ = try deleteEntities(.event, keeping: []) }

    /// Deletes every event type row.
    public func deleteAllEventTypes() throws { _ = try deleteEntities(.eventType, keeping: []) }

    /// Deletes every geofence row.
    public func deleteAllGeofences() throws { _ = try deleteEntities(.geofence, keeping: []) }

    /// Deletes every property definition row.
    public func deleteAllPropertyDefinitions() throws { _ = try deleteEntities(.propertyDefinition, keeping: []) }

    // MARK: Find

    /// The event `id`, or nil.
    public func findEvent(id: String) throws -> Event? { try find(Event.self, id: id) }

    /// The event type `id`, or nil.
    public func findEventType(id: String) throws -> EventType? { try find(EventType.self, id: id) }

    /// The geofence `id`, or nil.
    public func findGeofence(id: String) throws -> Geofence? { try find(Geofence.self, id: id) }

    /// The property definition `id`, or nil.
    public func findPropertyDefinition(id: String) throws -> PropertyDefinition? {
        try find(PropertyDefinition.self, id: id)
    }

    // MARK: Fetch all (order unspecified)

    /// Every event row.
    public func fetchAllEvents() throws -> [Event] { try fetchAll(Event.self) }

    /// Every event type row.
    public func fetchAllEventTypes() throws -> [EventType] { try fetchAll(EventType.self) }

    /// Every geofence row.
    public func fetchAllGeofences() throws -> [Geofence] { try fetchAll(Geofence.self) }

    /// Every property definition row.
    public func fetchAllPropertyDefinitions() throws -> [PropertyDefinition] { try fetchAll(PropertyDefinition.self) }

    // MARK: Pending mutations

    /// True when a mutation of that entity and operation exists, in any state.
    public func hasPendingMutation(
        entityId: String, entityType: MutationEntityType, operation: MutationOperation
    ) throws -> Bool {
        try fetchMutations(entityId: entityId).contains { $0.entityType == entityType && $0.operation == operation }
    }

    // MARK: Mark synced (throw `DataStoreError.notFound` for a missing row)

    /// Sets the event's `sync_status` to `synced`.
    public func markEventSynced(id: String) throws { try markSynced(.event, id: id) }

    /// Sets the event type's `sync_status` to `synced`.
    public func markEventTypeSynced(id: String) throws { try markSynced(.eventType, id: id) }

    /// Sets the geofence's `sync_status` to `synced`.
    public func markGeofenceSynced(id: String) throws { try markSynced(.geofence, id: id) }

    /// Sets the property definition's `sync_status` to `synced`.
    public func markPropertyDefinitionSynced(id: String) throws { try markSynced(.propertyDefinition, id: id) }
}
