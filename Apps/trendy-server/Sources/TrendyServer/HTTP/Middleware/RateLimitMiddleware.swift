import HTTPTypes
import Hummingbird
import Logging
import Protocols

/// api-v1 §9: a token bucket per user. Every counted answer carries the `RateLimit-*` headers — errors and
/// injected faults included — and an empty bucket is a 429 with `Retry-After`.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let limiter: RateLimiter
    let dialect: Dialect
    let clock: any SyncClock
    let logger: Logger

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        let decision = limiter.take(for: context.userId, now: clock.now())
        let headers: [(HTTPField.Name, String)] =
            dialect.legacyRateLimitHeaders
            ? [(.legacyRateLimitRemaining, "\(decision.remaining)")]
            : [
                (.rateLimitLimit, "\(limiter.capacity)"), (.rateLimitRemaining, "\(decision.remaining)"),
                (.rateLimitReset, "\(decision.resetSeconds)"),
            ]
        guard decision.allowed else {
            let retryAfter = dialect.legacyRateLimitHeaders ? 60 : decision.retryAfterSeconds
            var error = APIError(.rateLimit, "rate limit exceeded; retry in \(retryAfter) s", retryAfter: retryAfter)
            error.headers = headers
            if dialect.legacyRateLimitHeaders {
                error.detail = "rate limit exceeded"
                error.headers = [(.legacyRateLimitRemaining, "0"), (.legacyRateLimitLimit, "300, 300;w=60")]
            }
            throw error
        }
        // The legacy header is sent on 429s only.
        guard !dialect.legacyRateLimitHeaders else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            for (name, value) in headers where response.headers[name] == nil { response.headers[name] = value }
            return response
        } catch {
            throw withHeaders(error, headers, path: request.uri.path)
        }
    }

    /// `error` as an `APIError` that also carries `headers`; an unexpected error becomes a logged 500.
    private func withHeaders(_ error: any Error, _ headers: [(HTTPField.Name, String)], path: String) -> any Error {
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
        for (name, value) in headers where !present.contains(name) { apiError.headers.append((name, value)) }
        return apiError
    }
}
