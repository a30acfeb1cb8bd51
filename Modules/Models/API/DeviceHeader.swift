import Foundation

/// The device a request comes from, sent as `Trendy-Device` on every request (api-v1 §16).
///
/// A device is one local database: it makes its id once, keeps it, and sends it with the client it runs, so that the
/// server knows an account's devices, where each stands in its feed, and which one a user revoked.
public struct DeviceHeader: Sendable, Hashable {
    /// The device's id: a UUID, lowercased on the wire.
    public var id: UUID
    /// The client and its version, `name/version`: 1–64 visible ASCII characters, no `;`.
    public var client: String

    /// The header of device `id` running `client`.
    public init(id: UUID, client: String) {
        self.id = id
        self.client = client
    }

    /// The header's name.
    public static let headerName = "Trendy-Device"

    /// The parameter that carries `client`.
    static let clientParameter = "client"

    /// `ID; client=NAME/VERSION`.
    public var header: String { "\(id.uuidString.lowercased()); \(Self.clientParameter)=\(client)" }

    /// Whether `client` can travel in the header.
    public static func isValidClient(_ client: some StringProtocol) -> Bool {
        (1...64).contains(client.utf8.count) && client.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x3B }
    }

    /// Reads a header value; nil when it is not one `header` writes.
    public init?(header: String) {
        let parts = header.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2, let id = UUID(uuidString: parts[0]) else { return nil }
        let pair = parts[1].split(separator: "=", maxSplits: 1)
        guard pair.count == 2, pair[0] == Self.clientParameter, Self.isValidClient(pair[1]) else { return nil }
        self.init(id: id, client: String(pair[1]))
    }
}
