import Foundation
import GRDB
import Models

/// The SQLite schema of trendy-server, as an ordered list of migrations. Never edit a shipped migration: add one.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (id TEXT PRIMARY KEY NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;

                    CREATE TABLE event_types (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        color TEXT NOT NULL,
                        icon TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (user_id, name)
                    ) WITHOUT ROWID;
                    CREATE INDEX event_types_by_user ON event_types(user_id, created_at, id);

                    CREATE TABLE events (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL,
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
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX events_by_user_time ON events(user_id, timestamp DESC, id DESC);
                    CREATE INDEX events_by_type ON events(event_type_id);
                    CREATE INDEX events_by_geofence ON events(geofence_id) WHERE geofence_id IS NOT NULL;
                    CREATE UNIQUE INDEX events_manual_unique ON events(user_id, event_type_id, timestamp)
                        WHERE source_type != 'healthkit';
                    CREATE UNIQUE INDEX events_healthkit_unique ON events(user_id, healthkit_sample_id)
                        WHERE source_type = 'healthkit' AND healthkit_sample_id IS NOT NULL;

                    CREATE TABLE property_definitions (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL,
                        event_type_id TEXT NOT NULL,
                        key TEXT NOT NULL,
                        label TEXT NOT NULL,
                        property_type TEXT NOT NULL,
                        options TEXT,
                        default_value TEXT,
                        display_order INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (event_type_id, key)
                    ) WITHOUT ROWID;

                    CREATE TABLE geofences (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL,
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
                        updated_at INTEGER NOT NULL,
                        UNIQUE (user_id, name)
                    ) WITHOUT ROWID;

                    CREATE TABLE changes (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        operation TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        data TEXT,
                        deleted_at INTEGER,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX changes_by_user ON changes(user_id, id);
                    CREATE INDEX changes_by_age ON changes(created_at);

                    CREATE TABLE change_watermarks (
                        user_id TEXT PRIMARY KEY NOT NULL,
                        watermark INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE idempotency_records (
                        user_id TEXT NOT NULL,
                        method TEXT NOT NULL,
                        path TEXT NOT NULL,
                        key TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        status INTEGER NOT NULL,
                        content_type TEXT NOT NULL,
                        body BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, method, path, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX idempotency_by_age ON idempotency_records(created_at);
                    """)
        }
        // Changes looked up by entity (a shipped migration: the late re-send look-up it served is gone, the index
        // stays).
        migrator.registerMigration("v2-changes-by-entity") { db in
            try db.execute(sql: "CREATE INDEX changes_by_entity ON changes(user_id, entity_id, id)")
        }
        // Each event's digest hash kept with the row (EventDigestHashes); existing rows are hashed here, once.
        migrator.registerMigration("v3-event-digest-hashes") { db in
            try db.execute(
                sql: """
                    ALTER TABLE events ADD COLUMN digest_hash BLOB;
                    CREATE INDEX events_digest_pending ON events(user_id) WHERE digest_hash IS NULL;
                    CREATE TRIGGER events_digest_hash_stale AFTER UPDATE ON events
                    WHEN NEW.digest_hash IS OLD.digest_hash AND NEW.digest_hash IS NOT NULL
                    BEGIN UPDATE events SET digest_hash = NULL WHERE id = NEW.id; END;
                    """)
            try EventDigestHashes.fill(SQLiteTransaction(db), lockingRows: false)
        }
        // The ids each user deleted, apart from the change log so that retention keeps them (api-v1 §6.6); the
        // deletes the log still holds are copied in.
        migrator.registerMigration("v4-tombstones") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tombstones (
                        user_id TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        deleted_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, entity_id)
                    ) WITHOUT ROWID;
                    INSERT INTO tombstones (user_id, entity_id, entity_type, deleted_at)
                    SELECT c.user_id, c.entity_id, c.entity_type, c.deleted_at FROM changes c
                    WHERE c.operation = 'delete' AND c.deleted_at IS NOT NULL
                    AND c.id = (SELECT MAX(l.id) FROM changes l WHERE l.user_id = c.user_id AND l.entity_id = c.entity_id);
                    """)
        }
        // The histories of the database (api-v1 §15): its first begins here.
        migrator.registerMigration("v5-server-histories") { db in
            try db.execute(sql: SQLiteSchema.serverHistories)
            try ServerHistories.begin(SQLiteTransaction(db), now: Date().millisecondsSince1970)
        }
        // The change entries a give-back wrote, with the time of the version given back (api-v1 §15.1).
        migrator.registerMigration("v6-given-back-changes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE given_back_changes (
                        change_id INTEGER PRIMARY KEY NOT NULL,
                        acknowledged_at INTEGER NOT NULL
                    )
                    """)
        }
        // The members a give-back wrote from a device's queued edits, which count when written (api-v1 §15.1).
        migrator.registerMigration("v7-given-back-pending") { db in
            try db.execute(sql: "ALTER TABLE given_back_changes ADD COLUMN pending TEXT")
        }
        // Each user's compaction horizon: a cursor at or below it may name a change compaction deleted (api-v1 §6.8).
        migrator.registerMigration("v8-change-compactions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE change_compactions (
                        user_id TEXT PRIMARY KEY NOT NULL,
                        horizon INTEGER NOT NULL
                    ) WITHOUT ROWID
                    """)
        }
        // Each account's devices, where each stands in its feed, and which were revoked (api-v1 §16).
        migrator.registerMigration("v9-devices") { db in
            try db.execute(
                sql: """
                    CREATE TABLE devices (
                        user_id TEXT NOT NULL,
                        device_id TEXT NOT NULL,
                        client TEXT NOT NULL,
                        first_seen_at INTEGER NOT NULL,
                        last_seen_at INTEGER NOT NULL,
                        cursor INTEGER,
                        served INTEGER,
                        streaming INTEGER NOT NULL DEFAULT 0,
                        revoked_at INTEGER,
                        PRIMARY KEY (user_id, device_id)
                    ) WITHOUT ROWID
                    """)
        }
        // When each field of an entity last changed, kept for a give-back through the entries compaction removes
        // (api-v1 §6.8, §15.1).
        migrator.registerMigration("v10-compacted-field-times") { db in
            try db.execute(
                sql: """
                    CREATE TABLE compacted_field_times (
                        user_id TEXT NOT NULL,
                        entity_type TEXT NOT NULL,
                        entity_id TEXT NOT NULL,
                        through_change_id INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        PRIMARY KEY (user_id, entity_type, entity_id)
                    ) WITHOUT ROWID
                    """)
        }
        return migrator
    }

    static let serverHistories = """
        CREATE TABLE server_histories (
            position INTEGER PRIMARY KEY NOT NULL,
            id TEXT NOT NULL UNIQUE,
            backup_taken_at INTEGER,
            started_at INTEGER
        )
        """
}
