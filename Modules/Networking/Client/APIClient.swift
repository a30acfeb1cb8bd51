import AsyncHTTPClient
import Foundation
import Logging
import Models
import NIOCore
import Protocols
import Synchronization

/// The Trendy API v1 client over async-http-client: the production `NetworkClientProtocol`.
///
/// Every request carries `Authorization: Bearer` (read from the token provider per request), `Accept`, an
/// `X-Request-ID`, and on POST/PUT an `Idempotency-Key`. A 401 is retried once after a token refresh; a 429 at most
/// `maxRateLimitRetries` times within `rateLimitWaitCap` seconds of waiting, on the injected clock. Errors are
/// `NetworkError` only, classified from the body's content, never from `Content-Type`.
///
/// `Sendable` without `@unchecked`: every stored property is immutable and `Sendable` (`HTTPClient` is thread-safe).
public final class APIClient: NetworkClientProtocol {
    /// Where the server is and how long the client waits for it.
    public struct Configuration: Sendable, Hashable {
        /// The server every request goes to.
        public var serverRoot: ServerRoot
        /// Seconds a request may wait for data (1–300).
        public var requestTimeout: TimeInterval
        /// Seconds a request may take until its answer's head arrives (≥ `requestTimeout`).
        public var resourceTimeout: TimeInterval
        /// Retries of a 429 inside one call (0–5).
        public var maxRateLimitRetries: Int
        /// Total seconds one call may spend waiting on 429s (0–300).
        public var rateLimitWaitCap: TimeInterval
        /// The device every request says it comes from (`Trendy-Device`, api-v1 §16); nil sends none.
        public var device: DeviceHeader?

        /// A configuration; throws `ConfigurationError` for a value outside its range.
        public init(
            serverRoot: ServerRoot, requestTimeout: TimeInterval = 15, resourceTimeout: TimeInterval = 30,
            maxRateLimitRetries: Int = 3, rateLimitWaitCap: TimeInterval = 30, device: DeviceHeader? = nil
        ) throws(ConfigurationError) {
            guard (1...300).contains(requestTimeout) else { throw .outOfRange("requestTimeout", "1–300 s") }
            guard resourceTimeout >= requestTimeout else {
                throw .outOfRange("resourceTimeout", "at least the request timeout")
            }
            guard (0...5).contains(maxRateLimitRetries) else { throw .outOfRange("maxRateLimitRetries", "0–5") }
            guard (0...300).contains(rateLimitWaitCap) else { throw .outOfRange("rateLimitWaitCap", "0–300 s") }
            if let device, !DeviceHeader.isValidClient(device.client) {
                throw .outOfRange("device.client", "1–64 visible ASCII characters without ';'")
            }
            self.serverRoot = serverRoot
            self.requestTimeout = requestTimeout
            self.resourceTimeout = resourceTimeout
            self.maxRateLimitRetries = maxRateLimitRetries
            self.rateLimitWaitCap = rateLimitWaitCap
            self.device = device
        }
    }

    /// A configuration value the client refuses.
    public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
        /// The setting named first is outside the range given second.
        case outOfRange(String, String)

        public var description: String {
            switch self {
            case .outOfRange(let name, let range): "\(name) must be \(range)"
            }
        }
    }

    /// The settings the client was made with.
    public let configuration: Configuration
    let tokenProvider: any TokenProvider
    let clock: any SyncClock
    /// The connections: reads share kept-alive ones (closed after 20 s idle, before a server's idle timeout would);
    /// a write says `Connection: close` and so gets a connection of its own, never one the server may be closing at
    /// that moment: a lost answer is then a prompt transport error, and the engine re-sends under the same
    /// idempotency key (docs/error-recovery.md). No redirect is followed (`RedirectRefusal`).
    ///
    /// Not URLSession: on Linux its libcurl hand-offs between dispatch threads took a third of a push's client CPU
    /// in task switches (docs/history/performance.md, "The user's path").
    let http: HTTPClient
    private let sentRequests = Atomic<Int>(0)
    /// The `Trendy-Features` of the last answer (sync-engine R0); nil before the first.
    private let lastFeatures = Mutex<ServerFeatures?>(nil)
    /// The `Trendy-History` of the last answer that carried one (sync-engine R15).
    private let lastHistory = Mutex<ServerHistory?>(nil)
    /// Whether a server refused this client's device as revoked (api-v1 §16).
    private let refusedAsRevoked = Atomic<Bool>(false)
    /// The position writes are made from (N13): sent as `Trendy-Feed-Position` on every write but the give-back.
    private let position = Mutex<FeedPosition?>(nil)
    /// The keyset page after the one last read, already asked for (`APIClient+PagePrefetch.swift`).
    let pagePrefetch = Mutex<PagePrefetch?>(nil)
    let logger: Logger

    /// A client of `configuration`'s server, its token from `tokenProvider` before each request.
    public init(
        configuration: Configuration,
        tokenProvider: any TokenProvider,
        clock: any SyncClock = SystemClock(),
        logger: Logger = Logger(label: "trendy.networking")
    ) {
        self.configuration = configuration
        self.tokenProvider = tokenProvider
        self.clock = clock
        self.logger = logger
        var settings = HTTPClient.Configuration()
        let waitForData = TimeAmount.milliseconds(Int64(configuration.requestTimeout * 1000))
        settings.timeout = .init(connect: waitForData, read: waitForData, write: waitForData)
        settings.redirectConfiguration = .disallow
        settings.connectionPool = .init(idleTimeout: .seconds(20))
        // A refused connection is an answer: offline now, not after the pool's own retries until the deadline (the
        // engine waits for the next round, and trendyctl exits 75 at once).
        settings.connectionPool.retryConnectionEstablishment = false
        settings.decompression = .disabled
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }

    /// HTTP requests this client has sent, retries included: what a sync costs on the wire.
    public var sentRequestCount: Int { sentRequests.load(ordering: .relaxed) }

    func countSentRequest() { sentRequests.add(1, ordering: .relaxed) }

    public var serverFeatures: ServerFeatures? { lastFeatures.withLock { $0 } }

    func noteFeatures(_ header: String?) {
        let features = ServerFeatures(header: header)
        lastFeatures.withLock { $0 = features }
    }

    public var serverHistory: ServerHistory? { lastHistory.withLock { $0 } }

    func noteHistory(_ header: String?) {
        guard let history = ServerHistory(header: header) else { return }
        lastHistory.withLock { $0 = history }
    }

    /// True once a server answered that the device of `configuration.device` was revoked by its user (api-v1 §16):
    /// every later request is refused until it signs in again as a new device.
    public var deviceRevoked: Bool { refusedAsRevoked.load(ordering: .relaxed) }

    func noteFailure(_ failure: HTTPFailure) {
        if failure.status == 401, failure.problemType == Self.deviceRevokedProblem {
            refusedAsRevoked.store(true, ordering: .relaxed)
        }
    }

    /// The problem type of a revoked device's 401 (api-v1 §8.2).
    static let deviceRevokedProblem = "device_revoked"

    public func setWritePosition(_ position: FeedPosition?) { self.position.withLock { $0 = position } }

    var writePosition: FeedPosition? { position.withLock { $0 } }

    deinit {
        // The pool closes its connections; the client is released once that is done.
        let http = self.http
        Task { try? await http.shutdown() }
    }
}
