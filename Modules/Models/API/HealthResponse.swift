import Foundation

/// Answer to `GET /health`.
public struct HealthResponse: Sendable, Hashable, Codable {
    /// `ok` when the server and its database answer.
    public var status: String
    /// The environment the server says it runs in.
    public var env: String

    /// An answer.
    public init(status: String, env: String) {
        self.status = status
        self.env = env
    }
}
