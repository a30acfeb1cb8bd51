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

    /// Inserts `entity` as given; a taken id is `alreadyExists` (and, like any failed operation, rolls back).
    func insertRow<Entity: StoredEntity>(_ entity: Entity) throws {
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

    static func storedType(_ type: MutationEntityType) -> any StoredEntity.Type {
        switch type {
        case .event: Event.self
        case .eventType: EventType.self
        case .geofence: Geofence.self
        case .propertyDefinition: PropertyDefinition.self
        }
    }
}

// MARK: - The generic entity operations (sync-engine §2.4)

extension LocalStore {
    @discardableResult
    public func upsert<Entity: LocalEntity>(
        id: String, placeholder: (Date) -> Entity, configure: (inout Entity) -> Void
    ) throws -> Entity {
        try Self.table(of: Entity.self).upsert(in: self, id: id, placeholder: placeholder, configure: configure)
    }

    public func insert<Entity: LocalEntity>(_ entity: Entity) throws {
        try Self.row(entity).insert(in: self)
    }

    public func find<Entity: LocalEntity>(_ kind: Entity.Type, id: String) throws -> Entity? {
        try Self.table(of: kind).find(in: self, id: id) as? Entity
    }

    public func fetchAll<Entity: LocalEntity>(_ kind: Entity.Type) throws -> [Entity] {
        try Self.table(of: kind).fetchAll(in: self).compactMap { $0 as? Entity }
    }

    public func delete(_ kind: MutationEntityType, id: String) throws {
        switch kind {
        case .event: try deleteRow(of: "event", id: id)
        case .eventType: try deleteEventTypeCascading(id: id)
        case .geofence: try deleteGeofenceCascading(id: id)
        case .propertyDefinition: try deleteRow(of: "property_definition", id: id)
        }
    }

    /// The table of a kind of entity: only the four entities of this package have one.
    static func table<Entity: LocalEntity>(of kind: Entity.Type) throws -> any StoredEntity.Type {
        guard let table = kind as? any StoredEntity.Type else {
            throw DataStoreError.invalidData("\(kind) is not an entity of the local database")
        }
        return table
    }

    static func row<Entity: LocalEntity>(_ entity: Entity) throws -> any StoredEntity {
        guard let row = entity as? any StoredEntity else {
            throw DataStoreError.invalidData("\(Entity.self) is not an entity of the local database")
        }
        return row
    }

    private func deleteRow(of table: String, id: String) throws {
        try perform { db in try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id = ?").execute(arguments: [id]) }
    }

    /// Deletes the type and, in the same transaction, its events and property definitions (except children with
    /// a create mutation, which stay as orphans) and the geofence entry/exit ids that name it (sync-engine §1.4).
    private func deleteEventTypeCascading(id: String) throws {
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
    private func deleteGeofenceCascading(id: String) throws {
        try perform { db in
            try db.cachedStatement(sql: "UPDATE event SET geofence_id = NULL WHERE geofence_id = ?").execute(
                arguments: [id])
            try db.cachedStatement(sql: "DELETE FROM geofence WHERE id = ?").execute(arguments: [id])
        }
    }
}

/// The generic operations of one table, opened from `LocalStore.table(of:)`: each runs specialized for its entity
/// and converts only at the edge, where the caller's type is the same one.
extension StoredEntity {
    static func find(in store: LocalStore, id: String) throws -> Self? { try store.find(Self.self, id: id) }

    static func fetchAll(in store: LocalStore) throws -> [Self] { try store.fetchAll(Self.self) }

    func insert(in store: LocalStore) throws { try store.insertRow(self) }

    static func upsert<Entity: LocalEntity>(
        in store: LocalStore, id: String, placeholder: (Date) -> Entity, configure: (inout Entity) -> Void
    ) throws -> Entity {
        try store.perform { db in
            let stored = try store.find(Self.self, id: id, in: db)
            var entity = stored as? Entity ?? placeholder(store.now)
            configure(&entity)
            entity.id = id
            entity.syncStatus = .synced
            guard let row = entity as? Self else {
                throw DataStoreError.invalidData("\(Entity.self) is not the entity of the \(table) table")
            }
            // A row that would not change is not written: a pull that brings back what this device just pushed
            // costs a read, not a write and its WAL page.
            if row != stored { try store.write(row, in: db) }
            return entity
        }
    }
}

extension LocalStore {
    // MARK: DS6, DS7

    @discardableResult
    public func setSyncStatus(_ status: SyncStatus, entityType: MutationEntityType, id: String) throws -> Bool {
        try perform { db in try Self.setSyncStatus(status, of: entityType, id: id, in: db) }
    }

    /// DS6 inside a unit of work: false when no row has that id.
    @discardableResult
    static func setSyncStatus(
        _ status: SyncStatus, of entityType: MutationEntityType, id: String, in db: Database
    ) throws -> Bool {
        try db.cachedStatement(sql: storedType(entityType).statements.setSyncStatus)
            .execute(arguments: [status.rawValue, id])
        return db.changesCount > 0
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
