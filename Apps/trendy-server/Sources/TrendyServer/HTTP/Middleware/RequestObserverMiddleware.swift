import HTTPTypes
import Hummingbird

/// Tests only (`TestHooks.observeRequest`): hands every `/api/v1` request, body included, to the test as it
/// arrived, before authentication. Reading the body here is a test's choice; without the hook nothing reads a body
/// before the token is checked.
struct RequestObserverMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let maxBytes: Int
    let observe: @Sendable (ServerConfiguration.ObservedRequest) -> Void

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBytes)
        } catch {
            throw BodyLimitMiddleware.tooLarge(maxBytes)
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        observe(
            ServerConfiguration.ObservedRequest(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers,
                body: Array(body.readableBytesView)))
        return try await next(request, context)
    }
}
