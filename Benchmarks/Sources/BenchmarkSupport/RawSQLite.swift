import Foundation
import GRDBSQLite
import Models
import Persistence

/// The reference for applying pulled events: the same rows through one prepared statement of the SQLite C API in one
/// transaction, on the same schema, indexes and pragmas as the store. What the store costs above this is its own.
public final class RawSQLite {
    public enum Failure: Error {
        case open(String)
        case prepare(String)
        case step(String)
    }

    private let connection: OpaquePointer
    private let statement: OpaquePointer

    /// Opens `path` (creating the store's schema first) and prepares the insert.
    public init(path: String) throws {
        _ = try DatabaseStorage.open(.file(path: path))
        var connection: OpaquePointer?
        guard sqlite3_open(path, &connection) == SQLITE_OK, let connection else { throw Failure.open(path) }
        sqlite3_exec(connection, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", nil, nil, nil)
        let sql = """
            INSERT INTO event (id, event_type_id, timestamp, notes, is_all_day, end_date, source_type, external_id,
                original_title, geofence_id, location_latitude, location_longitude, location_name,
                healthkit_sample_id, healthkit_category, properties, sync_status)
            VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, NULL, NULL, ?, ?, NULL, NULL, NULL, ?, 'synced')
            """
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_close(connection)
            throw Failure.prepare(message)
        }
        self.connection = connection
        self.statement = statement
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(connection)
    }

    /// The events' properties as stored, encoded ahead so that the timed insert does no JSON work.
    public static func encodedProperties(_ events: some Sequence<APIEvent>) throws -> [[UInt8]] {
        try events.map { Array(try JSONCoding.encode($0.properties)) }
    }

    /// Inserts `events` (with their `properties` encoded ahead) in one transaction.
    public func insert(_ events: some Collection<APIEvent>, properties: [[UInt8]]) throws {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_exec(connection, "BEGIN", nil, nil, nil)
        for (event, encoded) in zip(events, properties) {
            sqlite3_bind_text(statement, 1, event.id, -1, transient)
            sqlite3_bind_text(statement, 2, event.eventTypeId, -1, transient)
            sqlite3_bind_int64(statement, 3, event.timestamp.millisecondsSince1970)
            if let notes = event.notes {
                sqlite3_bind_text(statement, 4, notes, -1, transient)
            } else {
                sqlite3_bind_null(statement, 4)
            }
            sqlite3_bind_int64(statement, 5, event.isAllDay ? 1 : 0)
            sqlite3_bind_text(statement, 6, event.sourceType.rawValue, -1, transient)
            if let latitude = event.locationLatitude, let longitude = event.locationLongitude {
                sqlite3_bind_double(statement, 7, latitude)
                sqlite3_bind_double(statement, 8, longitude)
            } else {
                sqlite3_bind_null(statement, 7)
                sqlite3_bind_null(statement, 8)
            }
            encoded.withUnsafeBytes { bytes in
                _ = sqlite3_bind_text(
                    statement, 9, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                    transient)
            }
            guard sqlite3_step(statement) == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(connection))
                sqlite3_reset(statement)
                sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
                throw Failure.step(message)
            }
            sqlite3_reset(statement)
        }
        sqlite3_exec(connection, "COMMIT", nil, nil, nil)
    }
}
