import HTTPTypes
import Hummingbird
import Protocols

/// api-v1 §10: the bearer token names the user (`APIContext.userId`), or the request ends in a 401 — a 429 once
/// its address has failed too often (`AuthFailureThrottle`).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let authenticator: Authenticator
    let throttle: AuthFailureThrottle
    let connections: ConnectionLimits
    let clock: any SyncClock

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let now = clock.now()
        do {
            context.userId = try authenticator.authenticate(authorization: request.headers[.authorization], now: now)
        } catch {
            var refusal = error
            if let wait = throttle.recordFailure(of: Self.address(of: context), now: now) {
                refusal = APIError(
                    .rateLimit, "too many failed authentications from this address; retry in \(wait) s",
                    retryAfter: wait)
            }
            // The body stays unread: rather than drain it, the connection closes after the answer.
            if ConnectionGuard.hasBody(request.head) { refusal.headers.append((.connection, "close")) }
            throw refusal
        }
        connections.authenticated(ObjectIdentifier(context.channel))
        return try await next(request, context)
    }

    /// The client's IP address, without its port (a client opens a new port per connection).
    static func address(of context: APIContext) -> String {
        context.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
