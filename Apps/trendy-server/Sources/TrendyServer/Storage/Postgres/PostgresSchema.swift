import Foundation
import Models

/// The PostgreSQL schema of trendy-server: versioned migrations, applied in one transaction at start under an
/// advisory lock, so instances that start together apply each migration once. Never edit a shipped migration.
///
/// The tables mirror SQLiteSchema's. Text is `COLLATE "C"` so that `ORDER BY id` is byte order on both backends;
/// booleans are BOOLEAN, times BIGINT milliseconds, idempotent answers BYTEA. The change log's ids come from a
/// sequence; PostgresTransaction explains why a user's ids still commit in order.
enum PostgresSchema {
    /// The advisory lock key that serialises migrations ("trendy" in ASCII).
    static let migrationLock: Int64 = 0x7472_656E_6479

    static let migrations: [(name: String, sql: [String])] = [
        (
            "v1-initial",
            [
                #"CREATE TABLE users (id TEXT COLLATE "C" PRIMARY KEY, created_at BIGINT NOT NULL)"#,
                """
                CREATE TABLE event_types (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    user_id TEXT COLLATE "C" NOT NULL,
                    name TEXT COLLATE "C" NOT NULL,
                    color TEXT NOT NULL,
                    icon TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (user_id, name)
                )
                """,
                "CREATE INDEX event_types_by_user ON event_types(user_id, created_at, id)",
                """
                CREATE TABLE events (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    user_id TEXT COLLATE "C" NOT NULL,
                    event_type_id TEXT COLLATE "C" NOT NULL,
                    timestamp BIGINT NOT NULL,
                    notes TEXT,
                    is_all_day BOOLEAN NOT NULL,
                    end_date BIGINT,
                    source_type TEXT COLLATE "C" NOT NULL,
                    external_id TEXT,
                    original_title TEXT,
                    geofence_id TEXT COLLATE "C",
                    location_latitude DOUBLE PRECISION,
                    location_longitude DOUBLE PRECISION,
                    location_name TEXT,
                    healthkit_sample_id TEXT COLLATE "C",
                    healthkit_category TEXT COLLATE "C",
                    properties TEXT NOT NULL DEFAULT '{}',
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX events_by_user_time ON events(user_id, timestamp DESC, id DESC)",
                "CREATE INDEX events_by_type ON events(event_type_id)",
                "CREATE INDEX events_by_geofence ON events(geofence_id) WHERE geofence_id IS NOT NULL",
                """
                CREATE UNIQUE INDEX events_manual_unique ON events(user_id, event_type_id, timestamp)
                    WHERE source_type != 'healthkit'
                """,
                """
                CREATE UNIQUE INDEX events_healthkit_unique ON events(user_id, healthkit_sample_id)
                    WHERE source_type = 'healthkit' AND healthkit_sample_id IS NOT NULL
                """,
                """
                CREATE TABLE property_definitions (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    user_id TEXT COLLATE "C" NOT NULL,
                    event_type_id TEXT COLLATE "C" NOT NULL,
                    key TEXT COLLATE "C" NOT NULL,
                    label TEXT NOT NULL,
                    property_type TEXT NOT NULL,
                    options TEXT,
                    default_value TEXT,
                    display_order BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (event_type_id, key)
                )
                """,
                """
                CREATE TABLE geofences (
                    id TEXT COLLATE "C" PRIMARY KEY,
                    user_id TEXT COLLATE "C" NOT NULL,
                    name TEXT COLLATE "C" NOT NULL,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    radius DOUBLE PRECISION NOT NULL,
                    event_type_entry_id TEXT COLLATE "C",
                    event_type_exit_id TEXT COLLATE "C",
                    is_active BOOLEAN NOT NULL,
                    notify_on_entry BOOLEAN NOT NULL,
                    notify_on_exit BOOLEAN NOT NULL,
                    ios_region_identifier TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (user_id, name)
                )
                """,
                """
                CREATE TABLE changes (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    user_id TEXT COLLATE "C" NOT NULL,
                    entity_type TEXT NOT NULL,
                    operation TEXT NOT NULL,
                    entity_id TEXT COLLATE "C" NOT NULL,
                    data TEXT,
                    deleted_at BIGINT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX changes_by_user ON changes(user_id, id)",
                "CREATE INDEX changes_by_age ON changes(created_at)",
                "CREATE INDEX changes_by_entity ON changes(user_id, entity_id, id)",
                #"CREATE TABLE change_watermarks (user_id TEXT COLLATE "C" PRIMARY KEY, watermark BIGINT NOT NULL)"#,
                """
                CREATE TABLE idempotency_records (
                    user_id TEXT COLLATE "C" NOT NULL,
                    method TEXT COLLATE "C" NOT NULL,
                    path TEXT COLLATE "C" NOT NULL,
                    key TEXT COLLATE "C" NOT NULL,
                    fingerprint TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    content_type TEXT NOT NULL,
                    body BYTEA NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, method, path, key)
                )
                """,
                "CREATE INDEX idempotency_by_age ON idempotency_records(created_at)",
            ]
        ),
        // Each event's digest hash kept with the row (EventDigestHashes); `backfills` hashes the existing rows.
        (
            "v3-event-digest-hashes",
            [
                "ALTER TABLE events ADD COLUMN digest_hash BYTEA",
                "CREATE INDEX events_digest_pending ON events(user_id) WHERE digest_hash IS NULL",
                """
                CREATE FUNCTION events_digest_hash_stale() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.digest_hash IS NOT DISTINCT FROM OLD.digest_hash THEN NEW.digest_hash := NULL; END IF;
                    RETURN NEW;
                END $$
                """,
                """
                CREATE TRIGGER events_digest_hash_stale BEFORE UPDATE ON events
                FOR EACH ROW EXECUTE FUNCTION events_digest_hash_stale()
                """,
            ]
        ),
        // The ids each user deleted, apart from the change log so that retention keeps them (api-v1 §6.6); the
        // deletes the log still holds are copied in.
        (
            "v4-tombstones",
            [
                """
                CREATE TABLE tombstones (
                    user_id TEXT COLLATE "C" NOT NULL,
                    entity_id TEXT COLLATE "C" NOT NULL,
                    entity_type TEXT NOT NULL,
                    deleted_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, entity_id)
                )
                """,
                """
                INSERT INTO tombstones (user_id, entity_id, entity_type, deleted_at)
                SELECT c.user_id, c.entity_id, c.entity_type, c.deleted_at FROM changes c
                WHERE c.operation = 'delete' AND c.deleted_at IS NOT NULL
                AND c.id = (SELECT MAX(l.id) FROM changes l WHERE l.user_id = c.user_id AND l.entity_id = c.entity_id)
                """,
            ]
        ),
        // The histories of the database (api-v1 §15): its first begins in the backfill.
        (
            "v5-server-histories",
            [
                """
                CREATE TABLE server_histories (
                    position BIGINT PRIMARY KEY,
                    id TEXT COLLATE "C" NOT NULL UNIQUE,
                    backup_taken_at BIGINT,
                    started_at BIGINT
                )
                """
            ]
        ),
        // The change entries a give-back wrote, with the time of the version given back (api-v1 §15.1).
        (
            "v6-given-back-changes",
            [
                """
                CREATE TABLE given_back_changes (
                    change_id BIGINT PRIMARY KEY,
                    acknowledged_at BIGINT NOT NULL
                )
                """
            ]
        ),
        // The members a give-back wrote from a device's queued edits, which count when written (api-v1 §15.1).
        ("v7-given-back-pending", ["ALTER TABLE given_back_changes ADD COLUMN pending TEXT"]),
        // Each user's compaction horizon: a cursor at or below it may name a change compaction deleted (api-v1 §6.8).
        (
            "v8-change-compactions",
            [
                """
                CREATE TABLE change_compactions (
                    user_id TEXT COLLATE "C" PRIMARY KEY,
                    horizon BIGINT NOT NULL
                )
                """
            ]
        ),
        // Each account's devices, where each stands in its feed, and which were revoked (api-v1 §16).
        (
            "v9-devices",
            [
                """
                CREATE TABLE devices (
                    user_id TEXT COLLATE "C" NOT NULL,
                    device_id TEXT COLLATE "C" NOT NULL,
                    client TEXT NOT NULL,
                    first_seen_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    cursor BIGINT,
                    served BIGINT,
                    streaming INTEGER NOT NULL DEFAULT 0,
                    revoked_at BIGINT,
                    PRIMARY KEY (user_id, device_id)
                )
                """
            ]
        ),
        // When each field of an entity last changed, kept for a give-back through the entries compaction removes
        // (api-v1 §6.8, §15.1).
        (
            "v10-compacted-field-times",
            [
                """
                CREATE TABLE compacted_field_times (
                    user_id TEXT COLLATE "C" NOT NULL,
                    entity_type TEXT NOT NULL,
                    entity_id TEXT COLLATE "C" NOT NULL,
                    through_change_id BIGINT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (user_id, entity_type, entity_id)
                )
                """
            ]
        ),
    ]

    /// What a migration does besides its statements, by name: work that needs the server's code.
    static let backfills: [String: @Sendable (any StorageTransaction) throws -> Void] = [
        "v3-event-digest-hashes": { db in try EventDigestHashes.fill(db, lockingRows: true) },
        "v5-server-histories": { db in try ServerHistories.begin(db, now: Date().millisecondsSince1970) },
    ]

    /// Applies the migrations this database has not seen, inside the caller's write transaction, which holds
    /// `migrationLock`.
    static func migrate(_ db: any StorageTransaction, schema: String?, location: String) throws {
        // The name was checked to be [a-z0-9_]+ when the URL was read.
        if let schema { try db.execute(sql: "CREATE SCHEMA IF NOT EXISTS \(schema)") }
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS trendy_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)
                """)
        let applied = Set(try db.values(String.self, sql: "SELECT name FROM trendy_migrations"))
        let unknown = applied.subtracting(migrations.map(\.name))
        if !unknown.isEmpty { throw DatabaseTooNew(location: location, unknownMigrations: unknown.sorted()) }
        for migration in migrations where !applied.contains(migration.name) {
            for statement in migration.sql { try db.execute(sql: statement) }
            try backfills[migration.name]?(db)
            try db.execute(
                sql: "INSERT INTO trendy_migrations (name, applied_at) VALUES (?, ?)",
                arguments: [migration.name, Int64(Date().timeIntervalSince1970 * 1000)])
        }
    }
}
