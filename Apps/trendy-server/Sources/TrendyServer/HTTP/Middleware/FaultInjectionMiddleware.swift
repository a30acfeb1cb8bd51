import HTTPTypes
import Hummingbird
import Logging

/// `--fault-*` (api-v1 §11, for tests and proofs): a delay, an injected 429 or 500 before the handler runs, or —
/// for a write that runs its handler (not an idempotent replay) — the write commits, then the connection closes
/// without an answer.
struct FaultInjectionMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let faults: FaultInjector
    let retryAfterSeconds: Int
    let logger: Logger

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        let choice = faults.choose(
            method: request.method.rawValue, path: request.uri.path, isWrite: request.method != .get)
        if choice.delayMilliseconds > 0 {
            try await Task.sleep(nanoseconds: UInt64(choice.delayMilliseconds) * 1_000_000)
        }
        switch choice.fault {
        case .rateLimited:
            logger.warning("fault injected: 429", metadata: ["path": "\(request.uri.path)"])
            var error = APIError(.rateLimit, "rate limit exceeded (injected fault)", retryAfter: retryAfterSeconds)
            error.headers = [(.trendyFault, "429")]
            throw error
        case .internalError:
            logger.warning("fault injected: 500", metadata: ["path": "\(request.uri.path)"])
            var error = APIError(.internal, "internal error (injected fault)")
            error.headers = [(.trendyFault, "500")]
            throw error
        case .drop:
            let response = try await next(request, context)
            // A lost answer after a commit: a replay committed nothing, so it is answered (the re-send gets through).
            guard response.headers[.legacyIdempotencyReplayed] != "true" else { return response }
            logger.warning(
                "fault injected: closing the connection without an answer", metadata: ["path": "\(request.uri.path)"])
            try? await context.channel.close()
            return response
        case nil:
            return try await next(request, context)
        }
    }
}
