import Crypto
import Foundation
import Models

/// `GET /api/v1/sync/digest[?bucket=XX]` (api-v1 §14): what the user holds, summed up so that a device can prove
/// its copy equal (sync-engine R10). One read transaction (repeatable read on PostgreSQL, a WAL snapshot on SQLite)
/// holds the cursor and the rows together.
enum SyncDigests {
    static func digest(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        guard request.dialect.servesStreamAndDigest else { throw APIError(.notFound, "no such route") }
        let cursor = try ChangeFeed.latestCursor(user: request.userId, db)
        if let bucket = request.query["bucket"] {
            guard EntityDigest.isBucketName(bucket) else {
                throw APIError(.badRequest, "bucket must be two lowercase hex digits, 00 to ff")
            }
            var items: [SyncDigestBucket.Item] = []
            try forEachEntity(of: request.userId, inBucket: bucket, db) { type, id, sum in
                items.append(.init(entityType: type.rawValue, id: id, hash: sum.hexString))
            }
            items.sort { $0.id < $1.id }
            return try .json(SyncDigestBucket(cursor: cursor, bucket: bucket, items: items))
        }
        var builder = DigestBuilder()
        try forEachEntity(of: request.userId, inBucket: nil, db) { type, id, sum in
            builder.add(type, id: id, sum: sum)
        }
        return try .json(builder.digest(cursor: cursor))
    }

    /// Every entity of `user` (of one bucket when given) with its SHA-256. An event's is read from its row
    /// (`EventDigestHashes`) when the row has one.
    static func forEachEntity(
        of user: String, inBucket bucket: String?, _ db: any StorageTransaction,
        _ body: (MutationEntityType, String, DigestSum) throws -> Void
    ) throws {
        // Ids are stored lowercase: the bucket is the id's last two characters.
        let filter = bucket == nil ? "" : " AND id LIKE ?"
        var arguments: [any SQLValueConvertible] = [user]
        if let bucket { arguments.append("%\(bucket)") }
        func each(_ entity: APIEntity) throws {
            let hash = Array(SHA256.hash(data: try EntityDigest.canonicalBytes(entity)))
            try body(entity.entityType, entity.id, DigestSum(hash: hash))
        }
        try db.forEachRow(
            "SELECT \(Rows.eventTypeColumns) FROM event_types WHERE user_id = ?\(filter)", arguments
        ) { row in
            try each(.eventType(try Rows.eventType(row)))
            return true
        }
        var damaged: [String] = []
        try db.forEachRow(
            "SELECT id, digest_hash FROM events WHERE user_id = ? AND digest_hash IS NOT NULL\(filter)", arguments
        ) { row in
            let id = try row.decode(String.self, atIndex: 0)
            if let sum = EventDigestHashes.stored(row, at: 1) { try body(.event, id, sum) } else { damaged.append(id) }
            return true
        }
        try db.forEachRow(
            "SELECT \(Rows.eventColumns) FROM events WHERE user_id = ? AND digest_hash IS NULL\(filter)", arguments
        ) { row in
            try each(.event(try Rows.event(row)))
            return true
        }
        for id in damaged {
            try db.forEachRow("SELECT \(Rows.eventColumns) FROM events WHERE id = ?", [id]) { row in
                try each(.event(try Rows.event(row)))
                return false
            }
        }
        try db.forEachRow("SELECT \(Rows.geofenceColumns) FROM geofences WHERE user_id = ?\(filter)", arguments) {
            row in
            try each(.geofence(try Rows.geofence(row)))
            return true
        }
        try db.forEachRow(
            "SELECT \(Rows.propertyDefinitionColumns) FROM property_definitions WHERE user_id = ?\(filter)", arguments
        ) { row in
            try each(.propertyDefinition(try Rows.propertyDefinition(row)))
            return true
        }
    }
}
