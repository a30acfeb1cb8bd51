import Foundation

/// Answer to `GET /health`.
public struct HealthResponse: Sendable, Hashable, Codable {
    public var status: String
    public var env: String

    public init(status: String, env: String) {
        self.status = status
        self.env = env
    }
}
