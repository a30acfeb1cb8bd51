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
    /// Bearer token → user id (lowercase UUID), from `--token` and `--dev`.
    public var staticTokens: [String: String] = [:]
    /// `--tokens-file`: more tokens, read at start and again on SIGHUP (`TrendyServer.reloadTokens()`).
    public var tokensFile: String?
    /// HS256 secret for JWTs (`--jwt-secret-file`); at least `minimumSecretBytes`.
    public var jwtSecret: [UInt8]?
    /// Requests per minute per user; nil turns the limiter off.
    public var rateLimitPerMinute: Int?
    /// Failed authentications a client address may make a minute (`--auth-failures-per-minute`); beyond them its
    /// failures are 429, while its valid tokens still pass.
    public var authFailuresPerMinute = 60
    public var faults = FaultConfiguration()
    public var quirks: Quirks = .none
    public var changelogRetentionDays: Int?
    /// Compact the change log below the changes older than this many days (`--changelog-compact-days`, api-v1 §6.8);
    /// nil keeps every change.
    public var changelogCompactDays: Int?
    /// Days after its last request a device expires (`--device-expiry-days`, api-v1 §16): compaction no longer keeps
    /// the changes at its feed position, and it resumes with a bootstrap.
    public var deviceExpiryDays = Self.defaultDeviceExpiryDays
    public static let defaultDeviceExpiryDays = 90
    /// The most devices, not revoked, one user keeps (`--max-devices-per-user`, api-v1 §16): a new one beyond them
    /// makes the server forget the least recently seen, which then no longer holds back compaction.
    public var maxDevicesPerUser = Self.defaultMaxDevicesPerUser
    public static let defaultMaxDevicesPerUser = 100
    /// The `env` reported by `/health`.
    public var environment = "development"
    public var maxBodyBytes = 8 * 1024 * 1024
    /// The most bytes of one listing page (change feed, keyset event pages, type and geofence lists): a page ends
    /// early rather than pass it, with its sign that more follows. Offset pages of events are not shortened (a short
    /// page ends an offset listing); they are bounded by `limit` and each event's text limits.
    public var maxPageBytes = Self.defaultMaxPageBytes
    public static let defaultMaxPageBytes = 4 * 1024 * 1024
    /// Seconds a connection may stay open without a request in progress (`--idle-timeout`): a keep-alive
    /// connection between requests, or one that sent blank lines or half a request head. The server closes it.
    public var idleTimeoutSeconds = 60
    /// Seconds from a request's head to the last byte of its body (`--body-timeout`); beyond it, 408 and the
    /// connection closes. A body trickled a byte at a time is cut here, where the idle timeout never fires.
    public var bodyTimeoutSeconds = 60
    /// Connections the server holds at once (`--max-connections`); beyond it, one answer (`/health` served, else
    /// 503) and the connection closes.
    public var maxConnections = 16_384
    /// Of them, connections that have not yet made an authenticated request (`--max-unauthenticated-connections`).
    public var maxUnauthenticatedConnections = 1024
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
        /// Asked with the user's id each time one of their change streams is about to send entries, where
        /// `--fault-stream-cut` would draw: a fault to meet instead.
        public var scriptedStreamFault: (@Sendable (String) -> ScriptedStreamFault?)?
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

    /// A fault a test injects into a change stream (`TestHooks.scriptedStreamFault`).
    public enum ScriptedStreamFault: Sendable {
        /// Half of the entries' bytes go out, then the connection closes (`--fault-stream-cut`).
        case cutMidEvent
        /// `event: reset` instead of the entries, then the stream closes, as when the retention watermark passes
        /// the stream's position.
        case reset
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

    /// HS256 is only as strong as its key: RFC 7518 §3.2 asks for at least the hash's size.
    public static let minimumSecretBytes = 32

    /// Parses one `TOKEN:USER_ID` pair; the user id must be a UUID. `source` names the pair in errors, which never
    /// show any part of a token.
    public mutating func addToken(_ pair: String, source: String = "a --token value") throws(ConfigurationError) {
        let (token, user) = try Self.parseToken(pair, source: source)
        try Self.add(token, user, to: &staticTokens, source: source)
    }

    /// Reads the contents of a tokens file into `staticTokens` (see `tokens(fromFileContents:)`).
    public mutating func addTokens(fromFileContents contents: String) throws(ConfigurationError) {
        for (token, user) in try Self.tokens(fromFileContents: contents, file: "the tokens file") {
            try Self.add(token, user, to: &staticTokens, source: "the tokens file")
        }
    }

    /// A tokens file: one `TOKEN:USER_ID` per line; blank lines and `#` comments are ignored; a token given two
    /// users is refused.
    public static func tokens(
        fromFileContents contents: String, file: String
    ) throws(ConfigurationError)
        -> [String: String]
    {
        var tokens: [String: String] = [:]
        for (index, line) in contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .enumerated()
        {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let source = "line \(index + 1) of \(file)"
            let (token, user) = try parseToken(trimmed, source: source)
            try add(token, user, to: &tokens, source: source)
        }
        return tokens
    }

    /// Every static token: the flags' and the tokens file's, the file read now.
    public func allStaticTokens() throws(ConfigurationError) -> [String: String] {
        var all = staticTokens
        guard let tokensFile else { return all }
        let contents: String
        do {
            contents = try String(contentsOfFile: tokensFile, encoding: .utf8)
        } catch {
            throw .unreadableFile("--tokens-file", tokensFile, error.localizedDescription)
        }
        for (token, user) in try Self.tokens(fromFileContents: contents, file: tokensFile) {
            try Self.add(token, user, to: &all, source: tokensFile)
        }
        return all
    }

    /// The secret of a `--jwt-secret-file`: its bytes, without the line ending an editor leaves (LF or CRLF, any
    /// number of them).
    public static func jwtSecret(fromFileContents bytes: [UInt8]) -> [UInt8] {
        var secret = bytes
        while let last = secret.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { secret.removeLast() }
        return secret
    }

    private static func parseToken(_ pair: String, source: String) throws(ConfigurationError) -> (String, String) {
        guard let separator = pair.lastIndex(of: ":") else { throw .invalidToken(source) }
        let token = String(pair[..<separator])
        let user = String(pair[pair.index(after: separator)...]).lowercased()
        guard !token.isEmpty, UUIDText.isCanonical(user) else { throw .invalidToken(source) }
        return (token, user)
    }

    private static func add(
        _ token: String, _ user: String, to tokens: inout [String: String], source: String
    )
        throws(ConfigurationError)
    {
        if let existing = tokens[token], existing != user { throw .tokenForTwoUsers(source) }
        tokens[token] = user
    }

    /// Refuses configurations the server cannot serve safely.
    public func validate() throws(ConfigurationError) {
        if staticTokens.isEmpty && tokensFile == nil && jwtSecret == nil { throw .noTokenSource }
        if let jwtSecret, jwtSecret.count < Self.minimumSecretBytes { throw .shortSecret(jwtSecret.count) }
        guard (0...65535).contains(port) else { throw .outOfRange("--port", "0–65535") }
        if let limit = rateLimitPerMinute, !(1...1_000_000).contains(limit) {
            throw .outOfRange("--rate-limit", "1–1000000 requests a minute")
        }
        guard (1...1_000_000).contains(authFailuresPerMinute) else {
            throw .outOfRange("--auth-failures-per-minute", "1–1000000 a minute")
        }
        if let days = changelogRetentionDays, !(1...36_500).contains(days) {
            throw .outOfRange("--changelog-retention-days", "1–36500 days")
        }
        if let days = changelogCompactDays, !(1...36_500).contains(days) {
            throw .outOfRange("--changelog-compact-days", "1–36500 days")
        }
        guard (1...36_500).contains(deviceExpiryDays) else { throw .outOfRange("--device-expiry-days", "1–36500 days") }
        guard (1...100_000).contains(maxDevicesPerUser) else {
            throw .outOfRange("--max-devices-per-user", "1–100000")
        }
        guard (1...86_400).contains(idleTimeoutSeconds) else { throw .outOfRange("--idle-timeout", "1–86400 seconds") }
        guard (1...86_400).contains(bodyTimeoutSeconds) else { throw .outOfRange("--body-timeout", "1–86400 seconds") }
        guard (1...1_000_000).contains(maxConnections) else { throw .outOfRange("--max-connections", "1–1000000") }
        guard (1...maxConnections).contains(maxUnauthenticatedConnections) else {
            throw .outOfRange("--max-unauthenticated-connections", "1–\(maxConnections) (--max-connections)")
        }
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
    /// Where the bad `TOKEN:USER_ID` pair is (never the token itself).
    case invalidToken(String)
    /// Where the second user of a token is given.
    case tokenForTwoUsers(String)
    case shortSecret(Int)
    case outOfRange(String, String)
    case unreadableFile(String, String, String)
    case invalidPostgresURL(String, String)

    public var description: String {
        switch self {
        case .noTokenSource:
            "refusing to start without a token source: pass --token TOKEN:USER_ID, --tokens-file FILE, "
                + "--jwt-secret-file FILE, or --dev for a development token"
        case .invalidToken(let source):
            "invalid token mapping in \(source): expected TOKEN:USER_ID with USER_ID a UUID"
        case .tokenForTwoUsers(let source):
            "\(source) maps a token that is already given to another user; a token names one user"
        case .shortSecret(let count):
            "the JWT secret is \(count) bytes; HS256 needs at least \(ServerConfiguration.minimumSecretBytes) "
                + "(make one with: head -c 32 /dev/urandom | base64 > jwt-secret)"
        case .unreadableFile(let flag, let path, let reason): "cannot read \(flag) \(path): \(reason)"
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
    /// Every request whose path ends with this answers 500, whatever the probabilities: one route made to fail
    /// for as long as the server runs (the proof's bootstrap whose definition reads all fail, sync-engine S84).
    public var failingPathSuffix: String?
    public var seed: UInt64?

    public init() {}

    public var isEnabled: Bool {
        probability500 > 0 || probability429 > 0 || probabilityDrop > 0 || probabilityStreamCut > 0
            || (delayMilliseconds > 0 && probabilityDelay > 0) || failingPathSuffix != nil
    }

    func validate() throws(ConfigurationError) {
        for (flag, value) in [
            ("--fault-500", probability500), ("--fault-429", probability429), ("--fault-drop", probabilityDrop),
            ("--fault-delay", probabilityDelay), ("--fault-stream-cut", probabilityStreamCut),
        ] where !(0...1).contains(value) {
            throw .outOfRange(flag, "a probability in [0, 1]")
        }
        guard (0...86_400).contains(retryAfterSeconds) else {
            throw .outOfRange("--fault-retry-after", "0–86400 seconds")
        }
        guard (0...600_000).contains(delayMilliseconds) else {
            throw .outOfRange("--fault-delay-ms", "0–600000 milliseconds")
        }
        if let failingPathSuffix, !failingPathSuffix.hasPrefix("/") {
            throw .outOfRange("--fault-500-path", "the end of a path, starting with '/' (for example /properties)")
        }
    }
}
