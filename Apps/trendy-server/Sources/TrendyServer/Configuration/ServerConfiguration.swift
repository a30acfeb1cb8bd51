import Foundation
import Models
import Protocols

/// Everything `trendy-server` is started with (spec/trendyctl.md §2), validated.
public struct ServerConfiguration: Sendable {
    public enum Storage: Sendable, Hashable {
        case file(path: String)
        case inMemory
        /// `--postgres URL`: a database several instances share (docs/server.md).
        case postgres(PostgresLocation)
    }

    /// `--quirks original` imitates the original Go backend where the client must tolerate it (api-v1 §12.1).
    public enum Quirks: String, Sendable, Hashable, CaseIterable {
        case none
        case original
    }

    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 8080
    public var storage: Storage = .inMemory
    /// Bearer token → user id (lowercase UUID).
    public var staticTokens: [String: String] = [:]
    /// HS256 secret for JWTs (`--jwt-secret-file`).
    public var jwtSecret: [UInt8]?
    /// Requests per minute per user; nil turns the limiter off.
    public var rateLimitPerMinute: Int?
    public var faults = FaultConfiguration()
    public var quirks: Quirks = .none
    public var changelogRetentionDays: Int?
    /// The `env` reported by `/health`.
    public var environment = "development"
    public var maxBodyBytes = 8 * 1024 * 1024
    /// Seconds a connection may stay open without a request in progress (`--idle-timeout`): a keep-alive
    /// connection between requests, or one that sent blank lines or half a request head. The server closes it.
    public var idleTimeoutSeconds = 60
    /// Change streams the server holds at once (`--max-streams`); beyond it, 503 (api-v1 §13).
    public var maxStreams = 10_000
    /// Change streams one user holds at once (`--max-streams-per-user`); beyond it, 429 `stream_limit`.
    public var maxStreamsPerUser = 16
    /// Seconds without an event after which a stream sends `: ping` (`--stream-keepalive`).
    public var streamKeepaliveSeconds = 15
    /// Time for timestamps, token expiry, rate limits, retention and idempotency TTL. Tests inject a manual one.
    public var clock: any SyncClock = SystemClock()
    /// Hooks for in-process tests; empty in production.
    public var testHooks = TestHooks()

    public struct TestHooks: Sendable {
        /// Awaited after the request registered its idempotency key and before its handler runs (method, path):
        /// lets a test hold a request in flight without timing.
        public var beforeHandler: (@Sendable (String, String) async -> Void)?
        /// Called for every `/api/v1` request as it arrived, before authentication.
        public var observeRequest: (@Sendable (ObservedRequest) -> Void)?
        /// Asked for every authenticated `/api/v1` request (method, path) where `--fault-*` would draw: a fault to
        /// inject instead of a random one, so a test can fail exactly the request it means to.
        public var scriptedFault: (@Sendable (String, String) -> ScriptedFault?)?
        /// False: this instance ignores other instances' commit notifications (PostgreSQL), as if every one of them
        /// were lost, so only the once-a-second re-read brings their entries to its streams.
        public var hearsCommitNotifications = true

        public init() {}
    }

    /// A fault a test injects into one request (`TestHooks.scriptedFault`), as `--fault-*` would.
    public enum ScriptedFault: Sendable {
        /// 500 before the handler runs: nothing is written.
        case internalError
        /// The handler runs and commits, then the connection closes without an answer.
        case drop
    }

    /// A request as the server received it.
    public struct ObservedRequest: Sendable {
        public let method: String
        public let path: String
        public let query: String?
        /// Header names lowercased.
        public let headers: [String: String]
        public let body: [UInt8]
    }

    public init() {}

    /// The user of the `--dev` token.
    public static let developmentUserId = "00000000-0000-4000-8000-000000000de0"
    public static let developmentToken = "dev-token"

    /// Adds the `dev-token` for the fixed development user.
    public mutating func enableDevelopmentToken() {
        staticTokens[Self.developmentToken] = Self.developmentUserId
    }

    /// Parses one `TOKEN:USER_ID` pair; the user id must be a UUID.
    public mutating func addToken(_ pair: String) throws(ConfigurationError) {
        guard let separator = pair.lastIndex(of: ":") else { throw .invalidToken(pair) }
        let token = String(pair[..<separator])
        let user = String(pair[pair.index(after: separator)...]).lowercased()
        guard !token.isEmpty, UUIDText.isCanonical(user) else { throw .invalidToken(pair) }
        staticTokens[token] = user
    }

    /// Reads `--tokens-file`: one `TOKEN:USER_ID` per line; blank lines and `#` comments are ignored.
    public mutating func addTokens(fromFileContents contents: String) throws(ConfigurationError) {
        for line in contents.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            try addToken(trimmed)
        }
    }

    /// Refuses configurations the server cannot serve safely.
    public func validate() throws(ConfigurationError) {
        if staticTokens.isEmpty && jwtSecret == nil { throw .noTokenSource }
        if let jwtSecret, jwtSecret.isEmpty { throw .emptySecret }
        guard (0...65535).contains(port) else { throw .outOfRange("--port", "0–65535") }
        if let limit = rateLimitPerMinute, limit < 1 { throw .outOfRange("--rate-limit", "at least 1") }
        if let days = changelogRetentionDays, days < 1 { throw .outOfRange("--changelog-retention-days", "at least 1") }
        if idleTimeoutSeconds < 1 { throw .outOfRange("--idle-timeout", "at least 1") }
        guard (1...1_000_000).contains(maxStreams) else { throw .outOfRange("--max-streams", "1–1000000") }
        guard (1...100_000).contains(maxStreamsPerUser) else {
            throw .outOfRange("--max-streams-per-user", "1–100000")
        }
        guard (1...3600).contains(streamKeepaliveSeconds) else {
            throw .outOfRange("--stream-keepalive", "1–3600 seconds")
        }
        try faults.validate()
    }
}

public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case noTokenSource
    case invalidToken(String)
    case emptySecret
    case outOfRange(String, String)
    case invalidPostgresURL(String, String)

    public var description: String {
        switch self {
        case .noTokenSource:
            "refusing to start without a token source: pass --token TOKEN:USER_ID, --tokens-file FILE, "
                + "--jwt-secret-file FILE, or --dev for a development token"
        case .invalidToken(let pair):
            "invalid token mapping \"\(pair.prefix(3))…\": expected TOKEN:USER_ID with USER_ID a UUID"
        case .emptySecret: "the JWT secret file is empty"
        case .outOfRange(let flag, let range): "\(flag) must be \(range)"
        case .invalidPostgresURL(let url, let reason): "--postgres \(url) is not a PostgreSQL URL: \(reason)"
        }
    }
}

/// Fault injection for tests (api-v1 §11). Probabilities are in [0, 1]; all off by default.
public struct FaultConfiguration: Sendable, Hashable {
    public var probability500 = 0.0
    public var probability429 = 0.0
    public var retryAfterSeconds = 1
    public var probabilityDrop = 0.0
    public var delayMilliseconds = 0
    public var probabilityDelay = 1.0
    /// Per batch of change-stream entries: the connection is cut in the middle of the batch (a dropped connection
    /// mid-event, api-v1 §13).
    public var probabilityStreamCut = 0.0
    public var seed: UInt64?

    public init() {}

    public var isEnabled: Bool {
        probability500 > 0 || probability429 > 0 || probabilityDrop > 0 || probabilityStreamCut > 0
            || (delayMilliseconds > 0 && probabilityDelay > 0)
    }

    func validate() throws(ConfigurationError) {
        for (flag, value) in [
            ("--fault-500", probability500), ("--fault-429", probability429), ("--fault-drop", probabilityDrop),
            ("--fault-delay", probabilityDelay), ("--fault-stream-cut", probabilityStreamCut),
        ] where !(0...1).contains(value) {
            throw .outOfRange(flag, "a probability in [0, 1]")
        }
        if retryAfterSeconds < 0 { throw .outOfRange("--fault-retry-after", "0 or more seconds") }
        if delayMilliseconds < 0 { throw .outOfRange("--fault-delay-ms", "0 or more milliseconds") }
    }
}
