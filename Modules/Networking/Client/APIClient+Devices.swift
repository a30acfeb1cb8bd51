import Foundation
import Models
import Protocols

// The account's devices (api-v1 §16): not an engine requirement, so not in `NetworkClientProtocol`.
extension APIClient {
    /// The account's devices, most recently seen first.
    public func devices() async throws(NetworkError) -> DeviceList {
        try await send(.get("devices"), as: DeviceList.self)
    }

    /// Revokes a device of the account: its requests are refused from now on, and its streams end at once.
    public func revokeDevice(id: UUID) async throws(NetworkError) {
        _ = try await send(.delete("devices/\(id.uuidString.lowercased())"))
    }
}
