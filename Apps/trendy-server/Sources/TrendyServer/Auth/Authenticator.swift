import Crypto
import Foundation
import HTTPTypes
import Models
import Synchronization

/// Maps a bearer token to a user id: static tokens first, then HS256 JWTs (api-v1 §10).
final class Authenticator: Sendable {
    /// Static tokens by their SHA-256: digests compare in constant time, so a guess learns nothing from timing.
    /// Replaced whole when the tokens file is reloaded (SIGHUP).
    private let staticTokens: Mutex<[(digest: SHA256.Digest, userId: String)]>
    private let jwtSecret: [UInt8]?

    init(staticTokens: [String: String], jwtSecret: [UInt8]?) {
        self.staticTokens = Mutex(Self.digests(staticTokens))
        self.jwtSecret = jwtSecret
    }

    /// Takes `tokens` for every later request; requests already authenticated keep their user.
    func replaceStaticTokens(_ tokens: [String: String]) {
        let digests = Self.digests(tokens)
        staticTokens.withLock { $0 = digests }
    }

    private static func digests(_ tokens: [String: String]) -> [(digest: SHA256.Digest, userId: String)] {
        tokens.map { (SHA256.hash(data: Array($0.key.utf8)), $0.value) }
    }

    /// The user of the `Authorization` header, or a 401 that never echoes the token.
    func authenticate(authorization: String?, now: Date) throws(APIError) -> String {
        guard let authorization, let space = authorization.firstIndex(of: " "),
            authorization[..<space].lowercased() == "bearer"
        else { throw Self.unauthorized("Authentication is required to access this resource") }
        let token = authorization[authorization.index(after: space)...].trimmingCharacters(in: .whitespaces)
        let digest = SHA256.hash(data: Array(token.utf8))
        let matched = staticTokens.withLock { entries in
            var matched: String?
            for entry in entries where entry.digest == digest { matched = entry.userId }
            return matched
        }
        if let matched { return matched }
        if let jwtSecret, token.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            do {
                return try JWT.verify(token, secret: jwtSecret, now: now)
            } catch .expired {
                throw Self.unauthorized("the access token has expired")
            } catch {
                throw Self.unauthorized("the access token is not valid")
            }
        }
        throw Self.unauthorized("Authentication is required to access this resource")
    }

    /// When the bearer token of an authenticated request stops being accepted: a JWT's `exp`; nil for a static
    /// token, which never expires. A change stream closes then, after `event: reauth` (api-v1 §13).
    func expiry(authorization: String?) -> Date? {
        guard jwtSecret != nil, let authorization, let space = authorization.firstIndex(of: " ") else { return nil }
        let token = authorization[authorization.index(after: space)...].trimmingCharacters(in: .whitespaces)
        return JWT.expiry(of: token)
    }

    static func unauthorized(_ detail: String) -> APIError {
        var error = APIError(.unauthorized, detail)
        error.headers = [(.wwwAuthenticate, "Bearer")]
        return error
    }
}
