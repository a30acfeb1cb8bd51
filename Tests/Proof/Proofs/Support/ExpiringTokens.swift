import Foundation
import Protocols
import Synchronization
import TrendyServer

/// Short-lived JWTs for a live device (token expiry among the faults a stream meets). Each token lasts
/// `lifetime` seconds: the server ends the device's stream with `reauth` when it expires and answers 401 to a request
/// that carries it; the device then asks for a fresh one (`refreshToken`), as an app's session refresh would.
final class ExpiringTokens: TokenProvider {
    /// The HS256 secret every proof server accepts (`--jwt-secret-file ProofServer.jwtSecretFile`).
    static let secret: [UInt8] = Array("trendy-proof: a test secret of more than 32 bytes".utf8)

    private let user: String
    private let lifetime: TimeInterval
    private let current = Mutex<(token: String, expiresAt: Date)?>(nil)
    private let minted = Mutex(0)

    init(user: String, lifetime: TimeInterval) {
        self.user = user
        self.lifetime = lifetime
    }

    /// Tokens made after the first: how many times the device met an expiry.
    var renewals: Int { max(0, minted.withLock { $0 } - 1) }

    func currentToken() async -> String? {
        let now = Date()
        if let token = current.withLock({ $0 }), token.expiresAt.timeIntervalSince(now) > 0.2 { return token.token }
        return mint(now)
    }

    func refreshToken() async -> String? { mint(Date()) }

    private func mint(_ now: Date) -> String {
        // JWT times are whole seconds: the token lives `lifetime` from the next whole second down.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
        let token = BearerTokens.hs256(user: user, secret: Self.secret, expiresAt: expiresAt)
        current.withLock { $0 = (token, expiresAt) }
        minted.withLock { $0 += 1 }
        return token
    }
}
