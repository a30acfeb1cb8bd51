import Foundation
import GRDB

/// The database schema, as an ordered list of migrations. Never edit a shipped migration: add a new one.
///
/// Every table lives in one SQLite file: entities, the outbox, engine state and history (sync-engine §1.9).
/// There are no foreign keys; the local cascade of sync-engine §1.4 is application code, in the same transaction.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial", migrate: createInitialTables)
        migrator.registerMigration("v2-query-indexes", migrate: addQueryIndexes)
        migrator.registerMigration("v3-unfetched-definition-types", migrate: addUnfetchedDefinitionTypes)
        migrator.registerMigration("v4-geofences-refreshed-at", migrate: addGeofencesRefreshedAt)
        migrator.registerMigration("v5-owed-features-batches", migrate: addOwedFeaturesAndBatches)
        migrator.registerMigration("v6-history-verify", migrate: allowVerifyHistory)
        migrator.registerMigration("v7-sent-updates", migrate: addSentUpdates)
        migrator.registerMigration("v8-cursor-created-at", migrate: addCursorCreatedAt)
        migrator.registerMigration("v9-acknowledged-versions", migrate: addAcknowledgedVersions)
        migrator.registerMigration("v10-folded-edits", migrate: addFoldedEdits)
        migrator.registerMigration("v11-device-identity", migrate: addDeviceIdentity)
        migrator.registerMigration("v12-cancelled-creates", migrate: addCancelledCreates)
        migrator.registerMigration("v13-head-check-start", migrate: addHeadCheckStart)
        migrator.registerMigration("v14-acknowledged-created-at", migrate: addAcknowledgedCreatedAt)
        return migrator
    }

    /// When each acknowledged version's incarnation was created, as the server said: what an event's give-back
    /// carries, since event rows keep no creation time (api-v1 §15.1). Versions recorded before have none.
    private static func addAcknowledgedCreatedAt(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE acknowledged_versions ADD COLUMN created_at INTEGER")
    }

    /// Where the pull began whose check at the feed's head no pull has made yet (sync-engine R15).
    private static func addHeadCheckStart(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE sync_engine_state ADD COLUMN head_check_cursor INTEGER")
        try db.execute(sql: "ALTER TABLE sync_engine_state ADD COLUMN head_check_created_at INTEGER")
    }

    /// The ids whose unsent create a local delete cancelled, until a completed pull (sync-engine §1.7).
    private static func addCancelledCreates(_ db: Database) throws {
        try db.execute(
            sql: "ALTER TABLE sync_engine_state ADD COLUMN cancelled_create_ids TEXT NOT NULL DEFAULT '[]'")
    }

    /// The id this database sends as its device (api-v1 §16), made once, here: a database is one device.
    private static func addDeviceIdentity(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_identity (
                    singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
                    device_id TEXT NOT NULL,
                    revoked_at INTEGER
                );
                INSERT INTO device_identity (singleton, device_id) VALUES (1, ?);
                """, arguments: [UUID().uuidString.lowercased()])
    }

    /// What the server acknowledged of each entity, with when, and the server history it belongs to: what a device
    /// gives back to a server restored from a backup (sync-engine R15). Entities synced before have no row.
    private static func addAcknowledgedVersions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE acknowledged_versions (
                    entity_type TEXT NOT NULL,
                    entity_id TEXT NOT NULL,
                    acknowledged_at INTEGER NOT NULL,
                    deleted INTEGER NOT NULL,
                    PRIMARY KEY (entity_id, entity_type)
                ) WITHOUT ROWID;
                CREATE INDEX acknowledged_versions_by_time ON acknowledged_versions(acknowledged_at);
                ALTER TABLE sync_engine_state ADD COLUMN server_history_id TEXT;
                ALTER TABLE sync_history ADD COLUMN given_back INTEGER NOT NULL DEFAULT 0;
                """)
    }

    /// The time of the change the cursor names, sent back with it so that the server can tell its history from a
    /// restored one (api-v1 §6.5). Null for a cursor stored before: such a cursor is sent alone until it moves.
    private static func addCursorCreatedAt(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE sync_engine_state ADD COLUMN cursor_created_at INTEGER")
    }

    /// An update's unsettled send, kept so that a merge never re-applies it under a new key
    /// (`PendingMutation.sentKey`). A create's edits folded into it (`PendingMutation.foldedEdits`, sync-engine §1.7).
    private static func addFoldedEdits(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE pending_mutations ADD COLUMN folded_edits BLOB")
    }

    private static func addSentUpdates(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE pending_mutations ADD COLUMN sent_key TEXT;
                ALTER TABLE pending_mutations ADD COLUMN sent_payload BLOB;
                """)
    }

    /// History rows of kind `verify` (sync-engine R10). SQLite cannot change a CHECK constraint in place: the table
    /// is rebuilt with the rows it holds.
    private static func allowVerifyHistory(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE sync_history_v6 (
                    id TEXT PRIMARY KEY NOT NULL,
                    started_at INTEGER NOT NULL,
                    finished_at INTEGER NOT NULL,
                    duration_ms INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('incremental', 'bootstrap', 'verify')),
                    status TEXT NOT NULL CHECK (status IN ('success', 'partial', 'failed')),
                    outcome TEXT NOT NULL,
                    message TEXT,
                    pushed INTEGER NOT NULL,
                    failed INTEGER NOT NULL,
                    dead_lettered INTEGER NOT NULL,
                    deferred INTEGER NOT NULL,
                    pulled INTEGER NOT NULL,
                    fenced INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID;
                INSERT INTO sync_history_v6 SELECT * FROM sync_history;
                DROP TABLE sync_history;
                ALTER TABLE sync_history_v6 RENAME TO sync_history;
                CREATE INDEX sync_history_by_start ON sync_history(started_at, id);
                """)
    }

    /// Revision 3: the owed read-backs (sync-engine R4; `seq` is the token, never reused), the server's features
    /// (R0), and the event-create batches sent and not answered yet (sync-engine §4.7 step 2), re-sent exactly as they
    /// went.
    private static func addOwedFeaturesAndBatches(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE owed_entities (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    entity_type TEXT NOT NULL
                        CHECK (entity_type IN ('event_type', 'geofence', 'property_definition', 'event')),
                    entity_id TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    after_id TEXT,
                    marked_at INTEGER NOT NULL,
                    UNIQUE (entity_type, entity_id)
                ) STRICT;
                ALTER TABLE sync_engine_state ADD COLUMN server_features TEXT NOT NULL DEFAULT '[]';
                CREATE TABLE unanswered_batches (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    key TEXT NOT NULL UNIQUE,
                    members TEXT NOT NULL,
                    sent_at INTEGER NOT NULL
                ) STRICT;
                """)
    }

    /// When the geofences were last read whole, so a refresh can wait for `geofenceRefreshInterval` (S78).
    private static func addGeofencesRefreshedAt(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE sync_engine_state ADD COLUMN geofences_refreshed_at INTEGER")
    }

    /// The event types whose property definitions a bootstrap could not fetch, fetched again by later rounds
    /// (docs/error-recovery.md, "A bootstrap that missed a type's definitions").
    private static func addUnfetchedDefinitionTypes(_ db: Database) throws {
        try db.execute(
            sql: "ALTER TABLE sync_engine_state ADD COLUMN unfetched_definition_types TEXT NOT NULL DEFAULT '[]'")
    }

    /// Local writes check for an event of the same type at the same instant, and every write recounts the queue by
    /// state: both scanned whole tables, which made 10 000 offline writes quadratic.
    private static func addQueryIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX event_by_type_time ON event(event_type_id, timestamp);
                DROP INDEX event_by_type;
                CREATE INDEX pending_mutations_by_state ON pending_mutations(state);
                """)
    }

    private static func createInitialTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE event_type (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    color TEXT NOT NULL,
                    icon TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                ) STRICT, WITHOUT ROWID;

                CREATE TABLE geofence (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    latitude REAL NOT NULL,
                    longitude REAL NOT NULL,
                    radius REAL NOT NULL,
                    event_type_entry_id TEXT,
                    event_type_exit_id TEXT,
                    is_active INTEGER NOT NULL,
                    notify_on_entry INTEGER NOT NULL,
                    notify_on_exit INTEGER NOT NULL,
                    ios_region_identifier TEXT,
                    created_at INTEGER NOT NULL,
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                ) STRICT, WITHOUT ROWID;

                CREATE TABLE property_definition (
                    id TEXT PRIMARY KEY NOT NULL,
                    event_type_id TEXT NOT NULL,
                    key TEXT NOT NULL,
                    label TEXT NOT NULL,
                    property_type TEXT NOT NULL,
                    options TEXT NOT NULL DEFAULT '[]',
                    default_value TEXT,
                    display_order INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX property_definition_by_type ON property_definition(event_type_id);

                CREATE TABLE event (
                    id TEXT PRIMARY KEY NOT NULL,
                    event_type_id TEXT NOT NULL,
                    timestamp INTEGER NOT NULL,
                    notes TEXT,
                    is_all_day INTEGER NOT NULL,
                    end_date INTEGER,
                    source_type TEXT NOT NULL,
                    external_id TEXT,
                    original_title TEXT,
                    geofence_id TEXT,
                    location_latitude REAL,
                    location_longitude REAL,
                    location_name TEXT,
                    healthkit_sample_id TEXT,
                    healthkit_category TEXT,
                    properties TEXT NOT NULL DEFAULT '{}',
                    sync_status TEXT NOT NULL DEFAULT 'pending'
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX event_by_type ON event(event_type_id);
                CREATE INDEX event_by_timestamp ON event(timestamp);
                CREATE INDEX event_by_geofence ON event(geofence_id) WHERE geofence_id IS NOT NULL;

                CREATE TABLE pending_mutations (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    entity_type TEXT NOT NULL
                        CHECK (entity_type IN ('event_type', 'geofence', 'property_definition', 'event')),
                    operation TEXT NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
                    entity_id TEXT NOT NULL,
                    payload BLOB,
                    client_request_id TEXT NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    last_attempt_at INTEGER,
                    first_sent_at INTEGER,
                    revision INTEGER NOT NULL DEFAULT 1,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    UNIQUE (entity_type, entity_id, operation)
                ) STRICT;
                CREATE INDEX pending_mutations_by_queue_order ON pending_mutations(created_at, seq);
                CREATE INDEX pending_mutations_by_entity ON pending_mutations(entity_id);

                CREATE TABLE sync_engine_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    cursor INTEGER NOT NULL DEFAULT 0,
                    bootstrap_requested INTEGER NOT NULL DEFAULT 0,
                    pending_delete_ids TEXT NOT NULL DEFAULT '[]',
                    breaker_consecutive_429 INTEGER NOT NULL DEFAULT 0,
                    breaker_backoff_until INTEGER,
                    breaker_multiplier REAL NOT NULL DEFAULT 1.0,
                    breaker_retry_after_hint REAL,
                    quiet_until INTEGER,
                    last_success_at INTEGER,
                    server_root TEXT,
                    account_user_id TEXT
                ) STRICT;

                CREATE TABLE sync_history (
                    id TEXT PRIMARY KEY NOT NULL,
                    started_at INTEGER NOT NULL,
                    finished_at INTEGER NOT NULL,
                    duration_ms INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('incremental', 'bootstrap')),
                    status TEXT NOT NULL CHECK (status IN ('success', 'partial', 'failed')),
                    outcome TEXT NOT NULL,
                    message TEXT,
                    pushed INTEGER NOT NULL,
                    failed INTEGER NOT NULL,
                    dead_lettered INTEGER NOT NULL,
                    deferred INTEGER NOT NULL,
                    pulled INTEGER NOT NULL,
                    fenced INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX sync_history_by_start ON sync_history(started_at, id);
                """)
    }
}
