import Foundation
import Logging
import Models
import Protocols
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Trendy API v1 client over URLSession: the production `NetworkClientProtocol`.
///
/// Every request carries `Authorization: Bearer` (read from the token provider per request), `Accept`, an
/// `X-Request-ID`, and on POST/PUT an `Idempotency-Key`. A 401 is retried once after a token refresh; a 429 at most
/// `maxRateLimitRetries` times within `rateLimitWaitCap` seconds of waiting, on the injected clock. Errors are
/// `NetworkError` only, classified from the body's content, never from `Content-Type`.
///
/// `Sendable` without `@unchecked`: every stored property is immutable and `Sendable` (URLSession is thread-safe).
public final class APIClient: NetworkClientProtocol {
    public struct Configuration: Sendable, Hashable {
        public var serverRoot: ServerRoot
        /// Seconds a request may wait for data (1–300).
        public var requestTimeout: TimeInterval
        /// Seconds a whole request may take (≥ `requestTimeout`).
        public var resourceTimeout: TimeInterval
        /// Retries of a 429 inside one call (0–5).
        public var maxRateLimitRetries: Int
        /// Total seconds one call may spend waiting on 429s (0–300).
        public var rateLimitWaitCap: TimeInterval

        public init(
            serverRoot: ServerRoot, requestTimeout: TimeInterval = 15, resourceTimeout: TimeInterval = 30,
            maxRateLimitRetries: Int = 3, rateLimitWaitCap: TimeInterval = 30
        ) throws(ConfigurationError) {
            guard (1...300).contains(requestTimeout) else { throw .outOfRange("requestTimeout", "1–300 s") }
            guard resourceTimeout >= requestTimeout else {
                throw .outOfRange("resourceTimeout", "at least the request timeout")
            }
            guard (0...5).contains(maxRateLimitRetries) else { throw .outOfRange("maxRateLimitRetries", "0–5") }
            guard (0...300).contains(rateLimitWaitCap) else { throw .outOfRange("rateLimitWaitCap", "0–300 s") }
            self.serverRoot = serverRoot
            self.requestTimeout = requestTimeout
            self.resourceTimeout = resourceTimeout
            self.maxRateLimitRetries = maxRateLimitRetries
            self.rateLimitWaitCap = rateLimitWaitCap
        }
    }

    public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
        case outOfRange(String, String)

        public var description: String {
            switch self {
            case .outOfRange(let name, let range): "\(name) must be \(range)"
            }
        }
    }

    public let configuration: Configuration
    let tokenProvider: any TokenProvider
    let clock: any SyncClock
    /// Requests without a body, over kept-alive connections.
    let session: URLSession
    /// Requests with a body each get a session of their own (`Connection: close`), so their connection is new and
    /// never reused. On Linux, libcurl re-sends a request whose reused connection died before an answer, but cannot
    /// rewind the body it already sent: the retry sends the head and hangs until the timeout. A server need not say
    /// `Connection: close` back, and libcurl then keeps the connection for the next request, so a shared session
    /// is not enough. A fresh connection is never retried that way: a lost answer is a prompt transport error and
    /// the engine re-sends under the same idempotency key (docs/error-recovery.md).
    let bodySessionConfiguration: URLSessionConfiguration
    private let sentRequests = Atomic<Int>(0)
    /// The `Trendy-Features` of the last answer (sync-engine R0); nil before the first.
    private let lastFeatures = Mutex<ServerFeatures?>(nil)
    /// The keyset page after the one last read, already asked for (`APIClient+PagePrefetch.swift`).
    let pagePrefetch = Mutex<PagePrefetch?>(nil)
    let logger: Logger

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
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.resourceTimeout
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        self.session = URLSession(
            configuration: sessionConfiguration, delegate: RedirectRefusal.shared, delegateQueue: nil)
        self.bodySessionConfiguration = sessionConfiguration
    }

    /// HTTP requests this client has sent, retries included: what a sync costs on the wire.
    public var sentRequestCount: Int { sentRequests.load(ordering: .relaxed) }

    func countSentRequest() { sentRequests.add(1, ordering: .relaxed) }

    public var serverFeatures: ServerFeatures? { lastFeatures.withLock { $0 } }

    func noteFeatures(_ header: String?) {
        let features = ServerFeatures(header: header)
        lastFeatures.withLock { $0 = features }
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}
