import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Models
import NIOCore
import Protocols
import Synchronization

/// One `/api/v1` route: its method, template and handler.
struct Route: Sendable {
    let method: HTTPRequest.Method
    let path: String
    let handler: @Sendable (APIRequest, any StorageTransaction) throws -> APIResponse

    var isWrite: Bool { method != .get }

    /// api-v1 §7: `Idempotency-Key` applies to POST and PUT only; GET and DELETE ignore it (a repeated DELETE
    /// runs again and gets 404, which clients treat as success).
    var takesIdempotencyKey: Bool { method == .post || method == .put }
}

/// The processing order of api-v1 §2.2 after routing: body limit → authentication → rate limit → device → fault
/// injection → idempotency → the handler in one database transaction (parsing and validation happen inside it).
final class Pipeline: Sendable {
    let configuration: ServerConfiguration
    let storage: any ServerStorage
    let authenticator: Authenticator
    /// 401s per client address (`--auth-failures-per-minute`).
    let authFailures: AuthFailureThrottle
    /// `--max-connections`, `--max-unauthenticated-connections` (`ConnectionGuard`).
    let connections: ConnectionLimits
    let limiter: RateLimiter?
    let faults: FaultInjector?
    let idempotency: IdempotencyGuard
    let metrics: ServerMetrics
    let logger: Logger
    /// The open change streams, rung after each write of their user commits (api-v1 §13).
    let streams: ChangeStreams
    /// The devices requests come from, and those revoked (api-v1 §16).
    let devices: DeviceRegistry
    /// Large answers are built one less at a time than there are cores (at least one): however many clients ask for
    /// the largest pages at once, a core stays for everyone else's requests (docs/performance.md, "Large answers").
    let largeAnswers = PermitGate(permits: ProcessInfo.processInfo.activeProcessorCount - 1)
    /// Users already created, to skip the insert on later requests.
    private let knownUsers = Mutex<Set<String>>([])

    init(
        configuration: ServerConfiguration, staticTokens: [String: String], storage: any ServerStorage,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.configuration = configuration
        self.storage = storage
        self.metrics = metrics
        self.logger = logger
        authenticator = Authenticator(staticTokens: staticTokens, jwtSecret: configuration.jwtSecret)
        authFailures = AuthFailureThrottle(failuresPerMinute: configuration.authFailuresPerMinute)
        connections = ConnectionLimits(
            maximumConnections: configuration.maxConnections,
            maximumUnauthenticated: configuration.maxUnauthenticatedConnections)
        limiter = configuration.rateLimitPerMinute.map(RateLimiter.init(requestsPerMinute:))
        faults =
            configuration.faults.isEnabled || configuration.testHooks.scriptedFault != nil
            ? FaultInjector(configuration: configuration.faults, scripted: configuration.testHooks.scriptedFault) : nil
        idempotency = IdempotencyGuard(dialect: Dialect(configuration.quirks))
        streams = ChangeStreams(
            maxStreams: configuration.maxStreams, maxStreamsPerUser: configuration.maxStreamsPerUser, metrics: metrics)
        devices = DeviceRegistry(storage: storage, maxDevicesPerUser: configuration.maxDevicesPerUser)
    }

    var dialect: Dialect { Dialect(configuration.quirks) }
    var now: Int64 { configuration.clock.now().millisecondsSince1970 }

    /// The middlewares of every `/api/v1` route, outermost first, in the order of api-v1 §2.2: a declared body
    /// too large → authentication → the body read → rate limit → the device (api-v1 §16) → fault injection.
    /// Idempotency and the handler follow in `respond`.
    func middlewares() -> [any RouterMiddleware<APIContext>] {
        var chain: [any RouterMiddleware<APIContext>] = []
        if let observe = configuration.testHooks.observeRequest {
            chain.append(RequestObserverMiddleware(maxBytes: configuration.maxBodyBytes, observe: observe))
        }
        chain += [
            DeclaredBodyLimitMiddleware(maxBytes: configuration.maxBodyBytes),
            AuthenticationMiddleware(
                authenticator: authenticator, throttle: authFailures, connections: connections,
                clock: configuration.clock),
            BodyLimitMiddleware(maxBytes: configuration.maxBodyBytes),
        ]
        if let limiter {
            chain.append(
                RateLimitMiddleware(limiter: limiter, dialect: dialect, clock: configuration.clock, logger: logger))
        }
        // After the rate limit: a client past its limit writes nothing to the registry, whatever ids it sends.
        if dialect.announcesFeatures { chain.append(DeviceMiddleware(registry: devices, clock: configuration.clock)) }
        if let faults {
            chain.append(
                FaultInjectionMiddleware(
                    faults: faults, retryAfterSeconds: configuration.faults.retryAfterSeconds, logger: logger))
        }
        return chain
    }

    /// Idempotency, then the handler in one database transaction (parsing and validation happen inside it). The
    /// middlewares have read the body and named the user.
    func respond(_ route: Route, _ request: Request, _ context: APIContext) async throws -> Response {
        let body = Array(try await request.body.collect(upTo: configuration.maxBodyBytes).readableBytesView)
        let user = context.userId
        var headers = HTTPFields()
        var scope: IdempotencyGuard.Scope?
        var fingerprint = ""
        var parsedBody: JSONValue?
        if route.takesIdempotencyKey, let key = try IdempotencyGuard.key(from: request.headers[.idempotencyKey]) {
            scope = IdempotencyGuard.Scope(
                user: user, method: route.method.rawValue,
                path: dialect.idempotencyPath(concrete: request.uri.path, template: route.path), key: key)
            (fingerprint, parsedBody) = IdempotencyGuard.fingerprinted(body)
        }
        // The give-back is made for a server that went back: its position is not checked (api-v1 §6.7).
        let position = route.isWrite && route.path != GiveBacks.path ? try writePosition(request) : nil
        let queuedAt = route.method == .post && route.path != GiveBacks.path ? try queuedAt(request, now: now) : nil
        if let scope {
            try idempotency.begin(scope, fingerprint: fingerprint)
        }
        defer { if let scope { idempotency.end(scope) } }
        if let scope,
            let record = try await storage.read({ [idempotency, now] db in
                if let position { try ChangeFeed.checkWritePosition(position, user: user, db) }
                return try idempotency.stored(scope, now: now, db)
            })
        {
            return try replay(record, fingerprint: fingerprint, headers: headers)
        }
        try await ensureUser(user)
        var apiRequest = APIRequest(
            userId: user, now: now, body: body, parsedBody: parsedBody, query: Self.query(request),
            parameters: Self.parameters(context),
            dialect: dialect)
        apiRequest.pageBytes = configuration.maxPageBytes
        apiRequest.writePosition = position
        apiRequest.queuedAt = queuedAt
        if let gate = configuration.testHooks.beforeHandler { await gate(route.method.rawValue, request.uri.path) }
        var answer: APIResponse
        do {
            switch try await run(route, apiRequest, scope: scope, fingerprint: fingerprint) {
            case .answer(let response): answer = response
            case .replay(let record): return try replay(record, fingerprint: fingerprint, headers: headers)
            }
        } catch let special as BatchAnswer {
            answer = special.response
        } catch is ClaimTaken {
            throw IdempotencyGuard.inFlight
        }
        if let failure = answer.failureAfterCommit { throw failure }
        if let device = context.device, let range = answer.feedRange {
            try await devices.pulled(device, cursor: range.cursor, served: range.served)
        }
        switch answer.observation {
        case .feedPage(let changes, let oldest):
            metrics.feedPage(changes: changes, oldestWaitedMilliseconds: oldest.map { apiRequest.now - $0 })
        case .batch(let items): metrics.batch(items: items)
        case .giveBack(let outcomes):
            metrics.givenBack(outcomes)
            // What a restore cost and what the devices brought back is the operator's to see (api-v1 §15.1).
            logger.notice(
                "a device gave back what the server had lost",
                metadata: Dictionary(uniqueKeysWithValues: outcomes.map { ($0.key.rawValue, "\($0.value)") })
                    .merging(["user": "\(apiRequest.userId)"]) { first, _ in first })
        case nil: break
        }
        if !answer.body.isEmpty { headers[.contentType] = "application/json; charset=utf-8" }
        for (name, value) in answer.headers { headers[name] = value }
        return Response(
            status: answer.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The `Trendy-Feed-Position` of a write (api-v1 §6.7): nil when absent, and always under `--quirks original`,
    /// which has no such check; one this server cannot read is a 400 that names the form.
    private func writePosition(_ request: Request) throws(APIError) -> FeedPosition? {
        guard dialect.announcesFeatures, let header = request.headers[.trendyFeedPosition] else { return nil }
        guard let position = FeedPosition(header: header) else {
            throw APIError(
                .badRequest, "\(FeedPosition.headerName) must be CURSOR or CURSOR; created_at=RFC3339 (api-v1 §6.7)")
        }
        return position
    }

    /// When a re-sent create's creates were queued, by this server's clock: `Trendy-Queued-For` (api-v1 §7) before
    /// `now`. Nil when absent, and always under `--quirks original`; a value this server cannot read is a 400 that
    /// names the form.
    private func queuedAt(_ request: Request, now: Int64) throws(APIError) -> Int64? {
        guard dialect.announcesFeatures, let header = request.headers[.trendyQueuedFor] else { return nil }
        guard let milliseconds = ResentCreate.queuedFor(headerValue: header) else {
            throw APIError(
                .badRequest, "\(ResentCreate.headerName) must be a whole number of milliseconds, 0 or more (api-v1 §7)")
        }
        return ResentCreate.dated(queuedFor: milliseconds, now: now)
    }

    /// The stored answer of an earlier request with the same key, byte for byte.
    private func replay(
        _ record: IdempotencyGuard.Record, fingerprint: String, headers: HTTPFields
    ) throws -> Response {
        // The original backend replays whatever the body (`Dialect.checksRepeatBody`).
        guard !dialect.checksRepeatBody || record.replay(forBodyWith: fingerprint) != nil else {
            throw IdempotencyGuard.mismatch
        }
        let answer = record.answer
        var headers = headers
        headers[.contentType] = answer.contentType
        if dialect.marksReplaysWithStandardHeader { headers[.idempotencyReplayed] = "true" }
        headers[.legacyIdempotencyReplayed] = "true"
        return Response(
            status: .init(code: answer.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    private enum Outcome: Sendable {
        case answer(APIResponse)
        /// Another instance answered the same key between our lookup and our transaction.
        case replay(IdempotencyGuard.Record)
    }

    /// Reads run in a read transaction; writes, their feed rows and the idempotency record in one write
    /// transaction, rolled back as a whole when the handler throws. The transaction claims the idempotency scope
    /// (another instance running it: 409 in flight) and looks the key up again under the user's lock, so a key
    /// answered by another instance a moment ago is replayed, never run twice.
    private func run(
        _ route: Route, _ request: APIRequest, scope: IdempotencyGuard.Scope?, fingerprint: String
    )
        async throws -> Outcome
    {
        let handler = Self.answering(route.handler, as: dialect)
        guard route.isWrite else {
            if Self.buildsLargeAnswer(route, request) {
                return .answer(
                    try await largeAnswers.holding { [storage] in
                        try await storage.readLarge { db in try handler(request, db) }
                    })
            }
            return .answer(try await storage.read { db in try handler(request, db) })
        }
        let claim = scope.map { "\($0.user) \($0.method) \($0.path) \($0.key)" }
        // Committed (or not): either way the user's streams look, and find new rows only after a commit.
        defer { streams.committed(user: request.userId, changeId: nil) }
        return try await storage.write(user: request.userId, claim: claim) { [idempotency] db in
            if let position = request.writePosition {
                try ChangeFeed.checkWritePosition(position, user: request.userId, db)
            }
            if let scope, let record = try idempotency.stored(scope, now: request.now, db) { return .replay(record) }
            let before = try request.queuedAt.map { _ in try ChangeLog.latestChange(user: request.userId, db) }
            var answer = try handler(request, db)
            if let queuedAt = request.queuedAt, let before, (200..<300).contains(answer.status.code) {
                answer = try ResentCreates.date(answer, request, queuedAt: queuedAt, after: before, db)
            }
            if let scope, (200..<300).contains(answer.status.code) {
                let record = IdempotencyGuard.Record(
                    fingerprint: fingerprint,
                    answer: .init(
                        status: answer.status.code, contentType: "application/json; charset=utf-8", body: answer.body))
                try idempotency.store(scope, record, now: request.now, db)
            }
            return .answer(answer)
        }
    }

    /// Reads whose answer can take tens of milliseconds to build: pages of events or changes asked for more than 100
    /// rows, and digests. They run off the event loops (`readLarge`). Type and geofence lists stay inline: a round's
    /// first request is often `GET /event-types` (S25), an account's types are few, and a hostile one's page is
    /// capped at 4 MiB.
    private static func buildsLargeAnswer(_ route: Route, _ request: APIRequest) -> Bool {
        switch route.path {
        case "/api/v1/sync/digest": return true
        case "/api/v1/events", "/api/v1/changes": return (request.query["limit"].flatMap { Int($0) } ?? 0) > 100
        default: return false
        }
    }

    /// `handler` with its answer's body in the dialect's form (`Dialect.answerBody`), before the answer is stored
    /// for replays.
    private static func answering(
        _ handler: @escaping @Sendable (APIRequest, any StorageTransaction) throws -> APIResponse, as dialect: Dialect
    ) -> @Sendable (APIRequest, any StorageTransaction) throws -> APIResponse {
        guard dialect != .ours else { return handler }
        return { request, db in
            var answer = try handler(request, db)
            answer.body = dialect.answerBody(answer.body)
            return answer
        }
    }

    private func ensureUser(_ user: String) async throws {
        guard knownUsers.withLock({ !$0.contains(user) }) else { return }
        try await storage.write(user: nil) { [now] db in try Users.ensure(db, id: user, now: now) }
        knownUsers.withLock { _ = $0.insert(user) }
    }

    private static func query(_ request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        return query
    }

    private static func parameters(_ context: APIContext) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in context.parameters { parameters[String(name)] = String(value) }
        return parameters
    }
}
