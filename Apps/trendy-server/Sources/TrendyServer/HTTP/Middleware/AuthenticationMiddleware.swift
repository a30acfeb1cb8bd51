import HTTPTypes
import Hummingbird
import Protocols

/// api-v1 §10: the bearer token names the user (`APIContext.userId`), or the request ends in a 401.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let authenticator: Authenticator
    let clock: any SyncClock

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.userId = try authenticator.authenticate(
            authorization: request.headers[.authorization], now: clock.now())
        return try await next(request, context)
    }
}
