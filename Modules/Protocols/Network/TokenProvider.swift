/// Supplies the bearer token. Read before every request, so a token rotated elsewhere is picked up at once.
public protocol TokenProvider: Sendable {
    /// The token to send now; nil sends no `Authorization` header (the server then answers 401).
    func currentToken() async -> String?

    /// Called once after a 401: a fresh token to retry with, or nil when none can be had.
    func refreshToken() async -> String?
}

/// A fixed token: what a CLI with a token file or a test with a known token needs.
public struct StaticTokenProvider: TokenProvider {
    /// The token every request carries; nil sends none.
    public let token: String?

    /// A provider that always answers `token`.
    public init(_ token: String?) {
        self.token = token
    }

    public func currentToken() async -> String? { token }

    /// A static token cannot be refreshed: the retry after a 401 uses the same value.
    public func refreshToken() async -> String? { token }
}
