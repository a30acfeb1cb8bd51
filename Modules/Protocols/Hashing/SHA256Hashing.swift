/// SHA-256, injected. The engine keys event batches with it (sync-engine S31), yet `Sync` links no crypto
/// library: the composition root passes the live implementation (`Hashing.CryptoSHA256`, on swift-crypto).
public protocol SHA256Hashing: Sendable {
    /// The lowercase hex SHA-256 of `bytes`.
    func hexDigest(of bytes: [UInt8]) -> String

    /// The 32 bytes of the SHA-256 of `bytes` (the sync digest adds them up, api-v1 §14).
    func digest(of bytes: [UInt8]) -> [UInt8]
}

extension SHA256Hashing {
    /// The lowercase hex SHA-256 of `text`'s UTF-8.
    public func hexDigest(of text: String) -> String { hexDigest(of: Array(text.utf8)) }

    /// Decodes `hexDigest(of:)`; an implementation that has the bytes returns them directly.
    public func digest(of bytes: [UInt8]) -> [UInt8] {
        let hex = Array(hexDigest(of: bytes).utf8)
        func nibble(_ byte: UInt8) -> UInt8 { byte >= 0x61 ? byte - 0x61 + 10 : byte - 0x30 }
        return stride(from: 0, to: hex.count - 1, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }
}
