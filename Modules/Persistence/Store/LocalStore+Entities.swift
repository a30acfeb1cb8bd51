import Foundation
import GRDB
import GRDBSQLite
import Models
import Protocols

// MARK: - Generic entity access

extension LocalStore {
    func find<Entity: StoredEntity>(_ type: Entity.Type, id: String, in db: Database) throws -> Entity? {
        var statement = RawStatement(try hotStatement(type, write: false, in: db))
        statement.bind(id)
        defer { statement.reset() }
        return try statement.step() ? Entity(statement) : nil
    }

    func write<Entity: StoredEntity>(_ entity: Entity, in db: Database) throws {
        var statement = RawStatement(try hotStatement(Entity.self, write: true, in: db))
        entity.bind(to: &statement)
        try statement.execute()
    }

    static func fetchAll<Entity: StoredEntity>(
        _ type: Entity.Type, sql: String, in db: Database, binding bind: (inout RawStatement) -> Void = { _ in }
    ) throws -> [Entity] {
        var statement = RawStatement(try db.cachedStatement(sql: sql))
        bind(&statement)
        var entities: [Entity] = []
        while try statement.step() { entities.append(Entity(statement)) }
        return entities
    }

    func find<Entity: StoredEntity>(_ type: Entity.Type, id: String) throws -> Entity? {
        try perform { db in try self.find(type, id: id, in: db) }
    }

    func fetchAll<Entity: StoredEntity>(_ type: Entity.Type) throws -> [Entity] {
        try perform { db in try Self.fetchAll(type, sql: Entity.statements.select, in: db) }
    }

    /// Applies `configure` to the row, or to `placeholder` when the row is missing; the row ends `synced`.
    func upsert<Entity: StoredEntity>(
        id: String, placeholder: (Date) -> Entity, configure: (inout Entity) -> Void
    ) throws -> Entity {
        try perform { db in
            let stored = try self.find(Entity.self, id: id, in: db)
            var entity = stored ?? placeholder(now)
            configure(&entity)
            entity.id = id
            entity.syncStatus = .synced
            // A row that would not change is not written: a pull that brings back what this device just pushed
            // costs a read, not a write and its WAL page.
            if entity != stored { try self.write(entity, in: db) }
            return entity
        }
    }

    /// Inserts `entity` as given; a taken id is `alreadyExists` (and, like any failed operation, rolls back).
    func insert<Entity: StoredEntity>(_ entity: Entity) throws {
        try perform { db in
            var statement = RawStatement(try db.cachedStatement(sql: Entity.statements.insert))
            entity.bind(to: &statement)
            do {
                try statement.execute()
            } catch {
                let code = sqlite3_extended_errcode(db.sqliteConnection)
                guard code == ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY.rawValue else { throw error }
                throw DataStoreError.alreadyExists(Entity.entityType, id: entity.id)
            }
        }
    }

    func markSynced<Entity: StoredEntity>(_ type: Entity.Type, id: String) throws {
        try perform { db in
            try db.cachedStatement(sql: Entity.statements.markSynced).execute(arguments: [id])
            if db.changesCount == 0 { throw DataStoreError.notFound(Entity.entityType, id: id) }
        }
    }

    static func storedType(_ type: MutationEntityType) -> any StoredEntity.Type {
        switch type {
        case .event: Event.self
        case .eventType: EventType.self
        case .geofence: Geofence.self
        case .propertyDefinition: PropertyDefinition.self
        }
    }
}

// MARK: - Seed methods: upsert, delete, find, fetch, mark synced

extension LocalStore {
    @discardableResult
    public func upsertEvent(id: String, configure: (inout Event) -> Void) throws -> Event {
        try upsert(id: id, placeholder: { Event.placeholder(id: id, at: $0) }, configure: configure)
    }

    @discardableResult
    public func upsertEventType(id: String, configure: (inout EventType) -> Void) throws -> EventType {
        try upsert(id: id, placeholder: { EventType.placeholder(id: id, at: $0) }, configure: configure)
    }

    @discardableResult
    public func upsertGeofence(id: String, configure: (inout Geofence) -> Void) throws -> Geofence {
        try upsert(id: id, placeholder: { Geofence.placeholder(id: id, at: $0) }, configure: configure)
    }

    @discardableResult
    public func upsertPropertyDefinition(
        id: String, eventTypeId: String, configure: (inout PropertyDefinition) -> Void
    ) throws -> PropertyDefinition {
        try upsert(
            id: id, placeholder: { PropertyDefinition.placeholder(id: id, eventTypeId: eventTypeId, at: $0) },
            configure: configure)
    }

    public func insertEvent(_ event: Event) throws { try insert(event) }

    public func insertEventType(_ eventType: EventType) throws { try insert(eventType) }

    public func insertGeofence(_ geofence: Geofence) throws { try insert(geofence) }

    public func insertPropertyDefinition(_ definition: PropertyDefinition) throws { try insert(definition) }

    public func deleteEvent(id: String) throws {
        try perform { db in try db.execute(sql: "DELETE FROM event WHERE id = ?", arguments: [id]) }
    }

    /// Deletes the type and, in the same transaction, its events and property definitions (except children with
    /// a create mutation, which stay as orphans) and the geofence entry/exit ids that name it (sync-engine §1.4).
    public func deleteEventType(id: String) throws {
        try perform { db in
            for child in ["event", "property_definition"] {
                try db.cachedStatement(
                    sql: """
                        DELETE FROM \(child) WHERE event_type_id = ? AND id NOT IN (
                            SELECT entity_id FROM pending_mutations
                            WHERE entity_type = '\(child)' AND operation = 'create')
                        """
                ).execute(arguments: [id])
            }
            for column in ["event_type_entry_id", "event_type_exit_id"] {
                try db.cachedStatement(sql: "UPDATE geofence SET \(column) = NULL WHERE \(column) = ?")
                    .execute(arguments: [id])
            }
            try db.cachedStatement(sql: "DELETE FROM event_type WHERE id = ?").execute(arguments: [id])
        }
    }

    /// Deletes the geofence and clears `geofence_id` on the events that name it (sync-engine §1.4).
    public func deleteGeofence(id: String) throws {
        try perform { db in
            try db.cachedStatement(sql: "UPDATE event SET geofence_id = NULL WHERE geofence_id = ?").execute(
                arguments: [id])
            try db.cachedStatement(sql: "DELETE FROM geofence WHERE id = ?").execute(arguments: [id])
        }
    }

    public func deletePropertyDefinition(id: String) throws {
        try perform { db in try db.execute(sql: "DELETE FROM property_definition WHERE id = ?", arguments: [id]) }
    }

    public func deleteAllEvents() throws { try deleteAll(Event.self) }
    public func deleteAllEventTypes() throws { try deleteAll(EventType.self) }
    public func deleteAllGeofences() throws { try deleteAll(Geofence.self) }
    public func deleteAllPropertyDefinitions() throws { try deleteAll(PropertyDefinition.self) }

    private func deleteAll<Entity: StoredEntity>(_ type: Entity.Type) throws {
        try perform { db in try db.execute(sql: "DELETE FROM \(Entity.table)") }
    }

    public func findEvent(id: String) throws -> Event? { try find(Event.self, id: id) }
    public func findEventType(id: String) throws -> EventType? { try find(EventType.self, id: id) }
    public func findGeofence(id: String) throws -> Geofence? { try find(Geofence.self, id: id) }
    public func findPropertyDefinition(id: String) throws -> PropertyDefinition? {
        try find(PropertyDefinition.self, id: id)
    }

    public func fetchAllEvents() throws -> [Event] { try fetchAll(Event.self) }
    public func fetchAllEventTypes() throws -> [EventType] { try fetchAll(EventType.self) }
    public func fetchAllGeofences() throws -> [Geofence] { try fetchAll(Geofence.self) }
    public func fetchAllPropertyDefinitions() throws -> [PropertyDefinition] { try fetchAll(PropertyDefinition.self) }

    public func markEventSynced(id: String) throws { try markSynced(Event.self, id: id) }
    public func markEventTypeSynced(id: String) throws { try markSynced(EventType.self, id: id) }
    public func markGeofenceSynced(id: String) throws { try markSynced(Geofence.self, id: id) }
    public func markPropertyDefinitionSynced(id: String) throws { try markSynced(PropertyDefinition.self, id: id) }

    // MARK: DS6, DS7

    public func setSyncStatus(_ status: SyncStatus, entityType: MutationEntityType, id: String) throws {
        try perform { db in
            try Self.setSyncStatus(status, of: entityType, id: id, in: db)
        }
    }

    static func setSyncStatus(
        _ status: SyncStatus, of entityType: MutationEntityType, id: String, in db: Database
    )
        throws
    {
        try db.execute(
            sql: "UPDATE \(entityType.rawValue) SET sync_status = ? WHERE id = ?", arguments: [status.rawValue, id])
    }

    public func deleteEntities(_ type: MutationEntityType, keeping ids: Set<String>) throws -> Int {
        try perform { db in
            let kept = Column.json(Array(ids))
            try db.execute(
                sql: "DELETE FROM \(type.rawValue) WHERE id NOT IN (SELECT value FROM json_each(?))", arguments: [kept])
            return db.changesCount
        }
    }
}
