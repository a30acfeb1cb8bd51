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

/// The processing order of api-v1 §2.2 after routing: body limit → authentication → rate limit → fault injection →
/// idempotency → the handler in one database transaction (parsing and validation happen inside the handler).
final class Pipeline: Sendable {
    let configuration: ServerConfiguration
    let storage: any ServerStorage
    let authenticator: Authenticator
    let limiter: RateLimiter?
    let faults: FaultInjector?
    let idempotency: IdempotencyGuard
    let metrics: ServerMetrics
    let logger: Logger
    /// Users already created, to skip the insert on later requests.
    private let knownUsers = Mutex<Set<String>>([])

    init(configuration: ServerConfiguration, storage: any ServerStorage, metrics: ServerMetrics, logger: Logger) {
        self.configuration = configuration
        self.storage = storage
        self.metrics = metrics
        self.logger = logger
        authenticator = Authenticator(configuration: configuration)
        limiter = configuration.rateLimitPerMinute.map(RateLimiter.init(requestsPerMinute:))
        faults = configuration.faults.isEnabled ? FaultInjector(configuration: configuration.faults) : nil
        idempotency = IdempotencyGuard(original: configuration.quirks == .original)
    }

    var original: Bool { configuration.quirks == .original }
    var now: Int64 { configuration.clock.now().millisecondsSince1970 }

    func respond(_ route: Route, _ request: Request, _ context: APIContext) async throws -> Response {
        let body = try await collectBody(request)
        if let observe = configuration.testHooks.observeRequest {
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            observe(
                ServerConfiguration.ObservedRequest(
                    method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers,
                    body: body))
        }
        let user = try authenticator.authenticate(
            authorization: request.headers[.authorization], now: configuration.clock.now())
        var headers = HTTPFields()
        try applyRateLimit(user: user, headers: &headers)
        do {
            return try await respondCounted(route, request, context, body: body, user: user, headers: headers)
        } catch {
            // api-v1 §9: every counted answer carries the rate-limit headers, errors and injected faults included.
            throw withHeaders(error, headers, path: request.uri.path)
        }
    }

    /// Everything after the rate limit: faults, idempotency, the handler.
    private func respondCounted(
        _ route: Route, _ request: Request, _ context: APIContext, body: [UInt8], user: String, headers: HTTPFields
    ) async throws -> Response {
        var headers = headers
        let drop = try await applyFaults(route, request, context)
        var scope: IdempotencyGuard.Scope?
        var fingerprint = ""
        if route.takesIdempotencyKey, let key = try IdempotencyGuard.key(from: request.headers[.idempotencyKey]) {
            scope = IdempotencyGuard.Scope(
                user: user, method: route.method.rawValue, path: original ? route.path : request.uri.path, key: key)
            fingerprint = IdempotencyGuard.fingerprint(body)
        }
        if let scope {
            try idempotency.begin(scope, fingerprint: fingerprint)
        }
        defer { if let scope { idempotency.end(scope) } }
        if let scope,
            let record = try await storage.read({ [idempotency, now] db in
                try idempotency.stored(scope, now: now, db)
            })
        {
            return try replay(record, fingerprint: fingerprint, headers: headers)
        }
        try await ensureUser(user)
        let apiRequest = APIRequest(
            userId: user, now: now, body: body, query: Self.query(request), parameters: Self.parameters(context),
            quirks: configuration.quirks)
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
        switch answer.observation {
        case .feedPage(let changes, let oldest):
            metrics.feedPage(changes: changes, oldestWaitedMilliseconds: oldest.map { apiRequest.now - $0 })
        case .batch(let items): metrics.batch(items: items)
        case nil: break
        }
        if drop {
            logger.warning(
                "fault injected: closing the connection without an answer", metadata: ["path": "\(request.uri.path)"])
            try? await context.channel.close()
        }
        if !answer.body.isEmpty { headers[.contentType] = "application/json; charset=utf-8" }
        return Response(
            status: answer.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// `error` as an `APIError` that also carries `headers`; an unexpected error becomes a logged 500.
    private func withHeaders(_ error: any Error, _ headers: HTTPFields, path: String) -> any Error {
        guard !headers.isEmpty else { return error }
        var apiError: APIError
        if let error = error as? APIError {
            apiError = error
        } else if error is CancellationError {
            return error
        } else {
            logger.error("unexpected error", metadata: ["path": "\(path)", "error": "\(error)"])
            apiError = APIError(.internal, "an unexpected error occurred")
        }
        let present = Set(apiError.headers.map(\.0))
        for field in headers where !present.contains(field.name) { apiError.headers.append((field.name, field.value)) }
        return apiError
    }

    /// The stored answer of an earlier request with the same key, byte for byte.
    private func replay(
        _ record: IdempotencyGuard.Record, fingerprint: String, headers: HTTPFields
    ) throws -> Response {
        guard original || record.fingerprint == fingerprint else { throw IdempotencyGuard.mismatch }
        var headers = headers
        headers[.contentType] = record.contentType
        if !original { headers[.idempotencyReplayed] = "true" }
        headers[.legacyIdempotencyReplayed] = "true"
        return Response(
            status: .init(code: record.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: record.body)))
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
        guard route.isWrite else { return .answer(try await storage.read { db in try route.handler(request, db) }) }
        let claim = scope.map { "\($0.user) \($0.method) \($0.path) \($0.key)" }
        return try await storage.write(user: request.userId, claim: claim) { [idempotency] db in
            if let scope, let record = try idempotency.stored(scope, now: request.now, db) { return .replay(record) }
            let answer = try route.handler(request, db)
            if let scope, (200..<300).contains(answer.status.code) {
                let record = IdempotencyGuard.Record(
                    fingerprint: fingerprint, status: answer.status.code,
                    contentType: "application/json; charset=utf-8",
                    body: answer.body)
                try idempotency.store(scope, record, now: request.now, db)
            }
            return .answer(answer)
        }
    }

    private func collectBody(_ request: Request) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
            return Array(buffer.readableBytesView)
        } catch {
            throw APIError(
                .payloadTooLarge,
                "the request body is larger than \(configuration.maxBodyBytes / 1_048_576) MiB; send smaller batches")
        }
    }

    private func applyRateLimit(user: String, headers: inout HTTPFields) throws(APIError) {
        guard let limiter else { return }
        let decision = limiter.take(for: user, now: configuration.clock.now())
        var limitHeaders: [(HTTPField.Name, String)] = []
        if original {
            limitHeaders = [(.legacyRateLimitRemaining, "\(decision.remaining)")]
        } else {
            limitHeaders = [
                (.rateLimitLimit, "\(limiter.capacity)"), (.rateLimitRemaining, "\(decision.remaining)"),
                (.rateLimitReset, "\(decision.resetSeconds)"),
            ]
        }
        guard decision.allowed else {
            let retryAfter = original ? 60 : decision.retryAfterSeconds
            var error = APIError(.rateLimit, "rate limit exceeded; retry in \(retryAfter) s", retryAfter: retryAfter)
            error.headers = limitHeaders
            if original {
                error.detail = "rate limit exceeded"
                error.headers = [(.legacyRateLimitRemaining, "0"), (.legacyRateLimitLimit, "300, 300;w=60")]
            }
            throw error
        }
        if !original { for (name, value) in limitHeaders { headers[name] = value } }
    }

    /// Returns whether the answer must be dropped after the request completes.
    private func applyFaults(_ route: Route, _ request: Request, _ context: APIContext) async throws -> Bool {
        guard let faults else { return false }
        let choice = faults.choose(isWrite: route.isWrite)
        if choice.delayMilliseconds > 0 {
            try await Task.sleep(nanoseconds: UInt64(choice.delayMilliseconds) * 1_000_000)
        }
        switch choice.fault {
        case .rateLimited:
            logger.warning("fault injected: 429", metadata: ["path": "\(request.uri.path)"])
            let seconds = configuration.faults.retryAfterSeconds
            var error = APIError(.rateLimit, "rate limit exceeded (injected fault)", retryAfter: seconds)
            error.headers = [(.trendyFault, "429")]
            throw error
        case .internalError:
            logger.warning("fault injected: 500", metadata: ["path": "\(request.uri.path)"])
            var error = APIError(.internal, "internal error (injected fault)")
            error.headers = [(.trendyFault, "500")]
            throw error
        case .drop:
            return true
        case nil:
            return false
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
