import Foundation
import Models

/// Each account's devices (api-v1 §16): the client each runs, when it was first and last seen, where it stands in its
/// feed, and whether it was revoked.
///
/// A device's feed position is kept as a range, `cursor` to `served`: `cursor` is the last position it pulled or
/// streamed from, `served` the last change sent to it since; while it streams (`streaming`) the range has no end.
/// The position the device holds lies in that range whatever it did with the answers, and compaction keeps every
/// change in it while the device is not expired (api-v1 §6.8), so its next pull finds the change its cursor names.
enum Devices {
    /// The feed ranges compaction keeps (api-v1 §6.8): those of the user's devices seen since `seenSince` and not
    /// revoked; a streaming device's has no end.
    static func feedRanges(
        user: String, seenSince: Int64, _ db: any StorageTransaction
    ) throws -> [ClosedRange<Int64>] {
        try db.rows(
            sql: """
                SELECT cursor, COALESCE(served, cursor), streaming FROM devices
                WHERE user_id = ? AND revoked_at IS NULL AND last_seen_at >= ? AND cursor IS NOT NULL
                """, arguments: [user, seenSince]
        ) { row in
            let low = row.int64(0)
            return low...(row.int64(2) != 0 ? Int64.max : max(low, row.int64(1)))
        }
    }

    /// A device seen: inserted the first time, else its client and last-seen time. Beyond `keeping` devices not
    /// revoked, the user's least recently seen are forgotten (api-v1 §16, cap): their ids are returned.
    static func saw(
        user: String, device: String, client: String, now: Int64, keeping cap: Int, _ db: any StorageTransaction
    ) throws -> [String] {
        try db.execute(
            sql: """
                INSERT INTO devices (user_id, device_id, client, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id, device_id) DO UPDATE SET client = excluded.client,
                    last_seen_at = CASE WHEN excluded.last_seen_at > devices.last_seen_at
                        THEN excluded.last_seen_at ELSE devices.last_seen_at END
                """, arguments: [user, device, client, now, now])
        return try forgetBeyond(cap, user: user, db)
    }

    /// Deletes the user's devices, not revoked, after the `cap` most recently seen, and returns their ids. A revoked
    /// device is kept whatever the count: forgetting it would let it back in.
    private static func forgetBeyond(_ cap: Int, user: String, _ db: any StorageTransaction) throws -> [String] {
        let active =
            try db.value(
                Int64.self, sql: "SELECT COUNT(*) FROM devices WHERE user_id = ? AND revoked_at IS NULL",
                arguments: [user]) ?? 0
        guard active > cap else { return [] }
        let forgotten = try db.rows(
            sql: """
                SELECT device_id FROM devices WHERE user_id = ? AND revoked_at IS NULL
                ORDER BY last_seen_at DESC, device_id
                """, arguments: [user]
        ) { row in try row.decode(String.self, atIndex: 0) }.dropFirst(cap)
        for device in forgotten {
            try db.execute(
                sql: "DELETE FROM devices WHERE user_id = ? AND device_id = ? AND revoked_at IS NULL",
                arguments: [user, device])
        }
        return Array(forgotten)
    }

    /// The device pulled from `cursor` and was sent the changes up to `served` (a page), or asked for the latest
    /// cursor (`cursor` nil, a bootstrap): the range its position lies in from now on.
    static func pulled(
        user: String, device: String, cursor: Int64?, served: Int64, _ db: any StorageTransaction
    ) throws {
        if let cursor {
            try db.execute(
                sql: "UPDATE devices SET cursor = ?, served = ? WHERE user_id = ? AND device_id = ?",
                arguments: [cursor, max(cursor, served), user, device])
        } else {
            // A bootstrap may fail before the device takes the latest cursor: its range reaches from where it stood.
            try db.execute(
                sql: """
                    UPDATE devices SET cursor = COALESCE(cursor, ?),
                        served = CASE WHEN served IS NULL OR served < ? THEN ? ELSE served END
                    WHERE user_id = ? AND device_id = ?
                    """, arguments: [served, served, served, user, device])
        }
    }

    /// A stream opened from `cursor`: the range is open-ended until it closes.
    static func streamOpened(user: String, device: String, cursor: Int64, _ db: any StorageTransaction) throws {
        try db.execute(
            sql: """
                UPDATE devices SET cursor = ?, served = ?, streaming = 1 WHERE user_id = ? AND device_id = ?
                """, arguments: [cursor, cursor, user, device])
    }

    /// A stream closed after sending the changes up to `sent`. A device runs one stream at a time (sync-engine R12);
    /// should it run two, the first to close ends the open range, and the other's device at worst bootstraps once.
    static func streamClosed(user: String, device: String, sent: Int64, _ db: any StorageTransaction) throws {
        try db.execute(
            sql: """
                UPDATE devices SET streaming = 0,
                    served = CASE WHEN served IS NULL OR served < ? THEN ? ELSE served END
                WHERE user_id = ? AND device_id = ?
                """, arguments: [sent, sent, user, device])
    }

    /// Revokes the device; false when the user has no device of that id. Revoking twice keeps the first time.
    static func revoke(user: String, device: String, now: Int64, _ db: any StorageTransaction) throws -> Bool {
        guard
            try db.value(
                Int64.self, sql: "SELECT first_seen_at FROM devices WHERE user_id = ? AND device_id = ?",
                arguments: [user, device]) != nil
        else { return false }
        try db.execute(
            sql: "UPDATE devices SET revoked_at = ? WHERE user_id = ? AND device_id = ? AND revoked_at IS NULL",
            arguments: [now, user, device])
        return true
    }

    /// Every revoked device of every user.
    static func revoked(_ db: any StorageTransaction) throws -> [DeviceRegistry.Key] {
        try db.rows(sql: "SELECT user_id, device_id FROM devices WHERE revoked_at IS NOT NULL") { row in
            DeviceRegistry.Key(
                user: try row.decode(String.self, atIndex: 0), device: try row.decode(String.self, atIndex: 1))
        }
    }

    /// The user's devices, most recently seen first; a device not seen since `seenSince` is expired.
    static func list(user: String, seenSince: Int64, _ db: any StorageTransaction) throws -> DeviceList {
        let latest = try ChangeFeed.latestCursor(user: user, db)
        let devices = try db.rows(
            sql: """
                SELECT device_id, client, first_seen_at, last_seen_at, COALESCE(served, cursor), streaming, revoked_at
                FROM devices WHERE user_id = ? ORDER BY last_seen_at DESC, device_id
                """, arguments: [user]
        ) { row in
            (
                id: try row.decode(String.self, atIndex: 0), client: try row.decode(String.self, atIndex: 1),
                firstSeen: row.int64(2), lastSeen: row.int64(3), sent: row.isNull(4) ? nil : row.int64(4),
                streaming: row.int64(5) != 0, revoked: row.isNull(6) ? nil : row.int64(6)
            )
        }
        let listed = try devices.map { device in
            // A device streaming now is sent each change as it commits.
            let behind =
                device.streaming
                ? 0
                : try db.value(
                    Int64.self, sql: "SELECT COUNT(*) FROM changes WHERE user_id = ? AND id > ?",
                    arguments: [user, device.sent ?? 0]) ?? 0
            return APIDevice(
                id: device.id, client: device.client, firstSeenAt: Date(millisecondsSince1970: device.firstSeen),
                lastSeenAt: Date(millisecondsSince1970: device.lastSeen), cursor: device.sent, behind: behind,
                streaming: device.streaming, revokedAt: device.revoked.map(Date.init(millisecondsSince1970:)),
                expired: device.lastSeen < seenSince)
        }
        return DeviceList(devices: listed, latestCursor: latest)
    }
}
