import Foundation
import GRDB
import Models
import Protocols

/// The device a database is to the server (api-v1 §16): an id made once, when the database was created or migrated,
/// and sent with every request; and whether the server said its user revoked it.
public struct DeviceIdentity: Sendable, Hashable {
    /// The id sent in `Trendy-Device`: made once per database, kept for its life (or until a revoke renews it).
    public var id: UUID
    /// When a server answered that this device was revoked; such a device signs in again as a new one
    /// (`DatabaseStorage.renewDeviceIdentity`).
    public var revokedAt: Date?
}

extension DatabaseStorage {
    /// This database's device.
    public func deviceIdentity() throws -> DeviceIdentity {
        try withWriterLease { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT device_id, revoked_at FROM device_identity"),
                let id = UUID(uuidString: row["device_id"])
            else {
                throw DataStoreError.damaged(path: location.displayPath, detail: "device_identity holds no device id")
            }
            let revoked: Int64? = row["revoked_at"]
            return DeviceIdentity(id: id, revokedAt: revoked.map(Date.init(millisecondsSince1970:)))
        }
    }

    /// Notes that the server refused this device as revoked (until it signs in again).
    public func markDeviceRevoked(at date: Date) throws {
        try withWriterLease { db in
            try db.execute(
                sql: "UPDATE device_identity SET revoked_at = ? WHERE revoked_at IS NULL",
                arguments: [date.millisecondsSince1970])
        }
    }

    /// A new device id, when the old one was revoked: the local data and the queue stay, and the server sees a new
    /// device from the next request. Returns the new id; nil when the device was not revoked (nothing changes).
    @discardableResult
    public func renewDeviceIdentityIfRevoked() throws -> UUID? {
        let renewed = UUID()
        return try withWriterLease { db in
            try db.execute(
                sql: "UPDATE device_identity SET device_id = ?, revoked_at = NULL WHERE revoked_at IS NOT NULL",
                arguments: [renewed.uuidString.lowercased()])
            return db.changesCount > 0 ? renewed : nil
        }
    }

    /// Runs `body` in a write transaction of its own, holding the lease that units of work hold (never inside one).
    private func withWriterLease<T>(_ body: (Database) throws -> T) throws -> T {
        guard lease.acquire() else { throw DataStoreError.busy(seconds: lease.timeout) }
        defer { lease.release() }
        do {
            return try writer.write(body)
        } catch {
            throw StoreErrors.map(error, path: location.displayPath)
        }
    }
}
