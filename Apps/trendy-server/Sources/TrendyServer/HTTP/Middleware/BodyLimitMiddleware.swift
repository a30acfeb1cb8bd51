import HTTPTypes
import Hummingbird

/// api-v1 §2.2, first: the whole body is read (up to `--max-body`) before anything else, so a body too large is a
/// 413 even without a token. Later steps and the handler read the collected body.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let maxBytes: Int
    let observe: (@Sendable (ServerConfiguration.ObservedRequest) -> Void)?

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBytes)
        } catch {
            throw APIError(
                .payloadTooLarge, "the request body is larger than \(maxBytes / 1_048_576) MiB; send smaller batches")
        }
        if let observe {
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            observe(
                ServerConfiguration.ObservedRequest(
                    method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers,
                    body: Array(body.readableBytesView)))
        }
        return try await next(request, context)
    }
}
