import Foundation
import Models
import Testing

@testable import Persistence

/// The device a database is to the server (api-v1 §16): made once, kept across opens, and renewed only when the server
/// said it was revoked.
@Suite("Device identity")
struct DeviceIdentityTests {
    @Test("api-v1 §16 a database's device id is made once and kept; a revoked one is renewed once, a current one never")
    func madeOnceRenewedWhenRevoked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("trendy.sqlite")
        let first = try DatabaseStorage.open(.file(path: path)).deviceIdentity()
        let reopened = try DatabaseStorage.open(.file(path: path))
        #expect(try reopened.deviceIdentity() == first && first.revokedAt == nil)
        #expect(try DatabaseStorage.open(.inMemory).deviceIdentity().id != first.id, "another database, another device")

        #expect(try reopened.renewDeviceIdentityIfRevoked() == nil, "not revoked: nothing changes")
        #expect(try reopened.deviceIdentity() == first)
        let revokedAt = Date(millisecondsSince1970: 1_800_000_000_000)
        try reopened.markDeviceRevoked(at: revokedAt)
        #expect(try reopened.deviceIdentity().revokedAt == revokedAt)
        let renewed = try #require(try reopened.renewDeviceIdentityIfRevoked())
        #expect(renewed != first.id)
        #expect(try reopened.deviceIdentity() == DeviceIdentity(id: renewed, revokedAt: nil))
        #expect(try reopened.renewDeviceIdentityIfRevoked() == nil)
    }
}
