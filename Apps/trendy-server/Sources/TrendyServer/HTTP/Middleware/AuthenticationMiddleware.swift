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
            // The body stays unread. A small one is discarded after the answer, as a keep-alive connection must;
            // a large one, or one of unknown length, is not worth reading: the connection closes instead.
            if Self.closesInsteadOfDraining(request.head) { refusal.headers.append((.connection, "close")) }
            throw refusal
        }
        connections.authenticated(ObjectIdentifier(context.channel))
        return try await next(request, context)
    }

    /// A refused request's body up to this many bytes is read and discarded; beyond it the connection closes. Small
    /// enough that a client without a token costs little, large enough for every ordinary write, whose client may
    /// still be sending when the 401 is written and must be able to read it (closing with unread bytes resets the
    /// connection).
    static let drainedBodyBytes = 64 * 1024

    static func closesInsteadOfDraining(_ request: HTTPRequest) -> Bool {
        guard ConnectionGuard.hasBody(request) else { return false }
        guard let declared = request.headerFields[.contentLength].flatMap(Int.init) else { return true }
        return declared > drainedBodyBytes
    }

    /// The client's IP address, without its port (a client opens a new port per connection).
    static func address(of context: APIContext) -> String {
        context.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
