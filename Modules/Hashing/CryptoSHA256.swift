import Crypto
import Protocols

/// The live `SHA256Hashing`: swift-crypto's SHA-256 (BoringSSL on Linux, CryptoKit on Apple platforms).
public struct CryptoSHA256: SHA256Hashing {
    /// The hasher; it holds no state.
    public init() {}

    public func hexDigest(of bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hexString
    }

    public func digest(of bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}

/// A swift-crypto digest as text.
extension Digest {
    /// Lowercase hex, two digits a byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(Self.byteCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
