import Foundation
import Synchronization

/// Between the requests and the `devices` table (api-v1 §16).
///
/// A sighting is written only when it says something new: a device this process has not written yet, another
/// client, another feed range, or a last-seen time a minute old. A device that polls an unchanged feed so costs no
/// write per request. Revoked devices are refused from memory: a revoke made here counts at once, one made by another
/// instance (PostgreSQL) once `refreshRevoked` has read the table, which `CommitWatch` does every second.
final class DeviceRegistry: Sendable {
    struct Key: Hashable, Sendable {
        let user: String
        let device: String
    }

    /// What was last written of a device.
    private struct Written: Sendable {
        var client: String
        var lastSeen: Int64
        var cursor: Int64?
        var served: Int64?
    }

    private struct State: Sendable {
        var written: [Key: Written] = [:]
        var revoked: Set<Key> = []
    }

    /// How old the written last-seen time may get while nothing else about the device changes.
    static let lastSeenInterval: Int64 = 60_000

    private let state = Mutex(State())
    private let storage: any ServerStorage
    /// The most devices, not revoked, a user keeps (`--max-devices-per-user`, api-v1 §16).
    private let maxDevicesPerUser: Int

    init(storage: any ServerStorage, maxDevicesPerUser: Int) {
        self.storage = storage
        self.maxDevicesPerUser = maxDevicesPerUser
    }

    /// 401 `device_revoked` for a device its user revoked.
    func refuseRevoked(_ key: Key) throws(APIError) {
        if state.withLock({ $0.revoked.contains(key) }) { throw APIError.deviceRevoked }
    }

    func isRevoked(_ key: Key) -> Bool { state.withLock { $0.revoked.contains(key) } }

    /// Reads the revoked devices again: revokes made by other instances count from now on.
    func refreshRevoked() async throws {
        let revoked = Set(try await storage.read { db in try Devices.revoked(db) })
        state.withLock { $0.revoked.formUnion(revoked) }
    }

    /// A request from the device: its client and last-seen time.
    func saw(_ key: Key, client: String, now: Int64) async throws {
        let due = state.withLock { state in
            guard let written = state.written[key] else { return true }
            return written.client != client || now - written.lastSeen >= Self.lastSeenInterval
        }
        guard due else { return }
        let cap = maxDevicesPerUser
        let forgotten = try await storage.write(user: nil) { db in
            try Devices.saw(user: key.user, device: key.device, client: client, now: now, keeping: cap, db)
        }
        state.withLock { state in
            // A forgotten device that comes back is written again at its first request.
            for device in forgotten { state.written[Key(user: key.user, device: device)] = nil }
            var written = state.written[key] ?? Written(client: client, lastSeen: now)
            written.client = client
            written.lastSeen = now
            state.written[key] = written
        }
    }

    /// A page pulled from `cursor` up to `served`, or the latest cursor read (`cursor` nil).
    func pulled(_ key: Key, cursor: Int64?, served: Int64) async throws {
        let unchanged = state.withLock { state in
            guard let cursor, let written = state.written[key] else { return false }
            return written.cursor == cursor && written.served == max(cursor, served)
        }
        guard !unchanged else { return }
        try await storage.write(user: nil) { db in
            try Devices.pulled(user: key.user, device: key.device, cursor: cursor, served: served, db)
        }
        state.withLock { state in
            // A bootstrap's range is read back from the table on the next pull: forget what was written.
            state.written[key]?.cursor = cursor
            state.written[key]?.served = cursor.map { max($0, served) }
        }
    }

    func streamOpened(_ key: Key, cursor: Int64) async throws {
        try await storage.write(user: nil) { db in
            try Devices.streamOpened(user: key.user, device: key.device, cursor: cursor, db)
        }
        state.withLock { state in
            state.written[key]?.cursor = nil
            state.written[key]?.served = nil
        }
    }

    func streamClosed(_ key: Key, sent: Int64) async throws {
        try await storage.write(user: nil) { db in
            try Devices.streamClosed(user: key.user, device: key.device, sent: sent, db)
        }
    }

    /// The user revoked the device (`DELETE /api/v1/devices/{id}`), committed: refused from now on.
    func revoked(_ key: Key) {
        _ = state.withLock { $0.revoked.insert(key) }
    }
}
