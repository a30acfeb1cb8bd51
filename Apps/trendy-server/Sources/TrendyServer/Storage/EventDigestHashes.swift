import Crypto
import Foundation
import Models

/// Each event row keeps its digest hash (api-v1 §14) in `digest_hash`, written in the statement that writes the row,
/// so the digest of a million-event account is a sum over a column instead of a million canonical texts to write
/// and hash (docs/performance.md, "A million-event account").
///
/// A hash can be missing, never stale: an UPDATE that changes a row without writing a new hash (a geofence delete
/// clearing its events' `geofence_id`, a server older than the column) has it cleared by a trigger in both schemas,
/// and the digest hashes a row without one from its columns, as it hashed every row before.
enum EventDigestHashes {
    /// The hash of an event row: SHA-256 of its canonical object.
    static func hash(of event: APIEvent) -> [UInt8] {
        let bytes = EntityDigest.eventBytes(
            id: event.id, eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes,
            isAllDay: event.isAllDay, sourceType: event.sourceType, details: event.details,
            properties: event.properties)
        return Array(SHA256.hash(data: bytes))
    }

    /// A stored hash, or nil when the column holds none or is damaged (not 32 bytes): the row is then hashed from
    /// its columns.
    static func stored(_ row: any StorageRow, at index: Int) -> DigestSum? {
        guard !row.isNull(index) else { return nil }
        return row.withBytes(index) { DigestSum(stored: $0) }
    }

    /// Hashes every event row that has no hash, a page at a time: the migration that adds the column runs it, so an
    /// existing account's first digest is already a sum. `lockingRows` takes the rows' locks while they are read
    /// (PostgreSQL, where another instance may write meanwhile); a SQLite write transaction holds the database.
    /// Returns the number of rows hashed.
    @discardableResult
    static func fill(_ db: any StorageTransaction, lockingRows: Bool) throws -> Int {
        var filled = 0
        var after = ""
        while true {
            var page: [(id: String, hash: [UInt8])] = []
            try db.forEachRow(
                """
                SELECT \(Rows.eventColumns) FROM events WHERE digest_hash IS NULL AND id > ? ORDER BY id LIMIT 1000\
                \(lockingRows ? " FOR UPDATE" : "")
                """, [after]
            ) { row in
                let event = try Rows.event(row)
                page.append((event.id, hash(of: event)))
                return true
            }
            guard let last = page.last else { return filled }
            for (id, hash) in page {
                try db.execute(sql: "UPDATE events SET digest_hash = ? WHERE id = ?", arguments: [hash, id])
            }
            filled += page.count
            after = last.id
        }
    }
}
