import Crypto
import Foundation
import Models

/// HS256 JSON Web Tokens (RFC 7519) as api-v1 §10 accepts them: `alg` pinned to `HS256`, `exp` required,
/// `nbf` honoured, 30 s leeway, `sub` a UUID that becomes the user id.
enum JWT {
    static let leeway: TimeInterval = 30

    enum Rejection: Error, Equatable {
        case malformed, algorithm, signature, expired, notYetValid, subject
    }

    /// The user id of a valid token.
    static func verify(_ token: String, secret: [UInt8], now: Date) throws(Rejection) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let claimBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONText.parse(headerBytes), let claims = try? JSONText.parse(claimBytes)
        else { throw .malformed }
        guard header["alg"]?.stringValue == "HS256" else { throw .algorithm }
        let signed = Array("\(parts[0]).\(parts[1])".utf8)
        // Constant time: swift-crypto compares the codes without stopping at the first differing byte.
        guard
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: SymmetricKey(data: secret))
        else { throw .signature }
        let seconds = now.timeIntervalSince1970
        guard let expiry = claims["exp"]?.doubleValue else { throw .expired }
        guard expiry + leeway > seconds else { throw .expired }
        if let notBefore = claims["nbf"] {
            guard let value = notBefore.doubleValue, value - leeway <= seconds else { throw .notYetValid }
        }
        guard let subject = claims["sub"]?.stringValue, UUIDText.isCanonical(subject) else { throw .subject }
        return subject.lowercased()
    }

    /// The `exp` claim of a token already verified; nil for anything else (a static token).
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let claimBytes = Base64URL.decode(parts[1]),
            let claims = try? JSONText.parse(claimBytes), let expiry = claims["exp"]?.doubleValue
        else { return nil }
        return Date(timeIntervalSince1970: expiry)
    }

    /// Signs `claims` with HS256 (the dev tooling and tests mint tokens with it).
    static func sign(claims: JSONValue, secret: [UInt8]) -> String {
        let header = Base64URL.encode(Array(JSONText.string(["alg": "HS256", "typ": "JWT"]).utf8))
        let payload = Base64URL.encode(Array(JSONText.string(claims).utf8))
        let signature = HMAC<SHA256>.authenticationCode(
            for: Array("\(header).\(payload)".utf8), using: SymmetricKey(data: secret))
        return "\(header).\(payload).\(Base64URL.encode(Array(signature)))"
    }
}

/// base64url without padding (RFC 4648 §5).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}

/// Mints bearer tokens the server accepts with `--jwt-secret-file` (for scripts, development and tests).
public enum BearerTokens {
    /// An HS256 JWT for `user`, expiring at `expiresAt`.
    public static func hs256(user: String, secret: [UInt8], expiresAt: Date) -> String {
        JWT.sign(
            claims: ["sub": .string(user), "exp": .number(expiresAt.timeIntervalSince1970.rounded(.down))],
            secret: secret)
    }
}
