/// SHA-256, injected. The engine keys event batches with it (sync-engine S31), yet `Sync` links no crypto
/// library: the composition root passes the live implementation (`Hashing.CryptoSHA256`, on swift-crypto).
public protocol SHA256Hashing: Sendable {
    /// The lowercase hex SHA-256 of `bytes`.
    func hexDigest(of bytes: [UInt8]) -> String
}

extension SHA256Hashing {
    /// The lowercase hex SHA-256 of `text`'s UTF-8.
    public func hexDigest(of text: String) -> String { hexDigest(of: Array(text.utf8)) }
}
