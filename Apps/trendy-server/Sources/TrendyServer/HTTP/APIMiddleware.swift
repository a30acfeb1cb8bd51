import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Models

/// The outermost middleware: assigns the request id, turns every error into the contract's error body, adds
/// `X-Request-ID` and `Cache-Control: no-store` to every answer, and logs one line per request.
struct APIMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let dialect: Dialect
    let history: ServerHistory
    let logger: Logger

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    )
        async throws -> Response
    {
        var context = context
        context.requestId = Self.validRequestId(request.headers[.requestID]) ?? UUID().uuidString.lowercased()
        let started = ContinuousClock.now
        var response: Response
        if dialect.redirectsTrailingSlash, let redirect = Self.trailingSlashRedirect(request) {
            response = redirect
        } else {
            do {
                response = try await next(request, context)
            } catch let error as APIError {
                response = render(error, requestId: context.requestId)
            } catch let error as HTTPError where error.status == .notFound {
                response = notFound(request, requestId: context.requestId)
            } catch let error as HTTPError {
                response = render(APIError(.badRequest, error.body ?? "bad request"), requestId: context.requestId)
            } catch {
                logger.error("unexpected error", metadata: ["request-id": "\(context.requestId)", "error": "\(error)"])
                response = render(APIError(.internal, "an unexpected error occurred"), requestId: context.requestId)
            }
        }
        response.headers[.requestID] = context.requestId
        response.headers[.cacheControl] = "no-store"
        if dialect.announcesFeatures {
            response.headers[.trendyFeatures] = Self.features.header
            response.headers[.trendyHistory] = history.header
        }
        let elapsed = ContinuousClock.now - started
        logger.info(
            "\(request.method.rawValue) \(request.uri.path) \(response.status.code)",
            metadata: [
                "request-id": "\(context.requestId)",
                "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
            ])
        return response
    }

    /// The revision-3 capabilities this server has, announced on every answer (api-v1 §2.1); `Dialect.announcesFeatures`.
    static let features = ServerFeatures([
        ServerFeatures.after, ServerFeatures.propertiesPatch, ServerFeatures.digest, ServerFeatures.stream,
        ServerFeatures.sinceCreatedAt, ServerFeatures.devices,
    ])

    /// 1–128 visible ASCII characters (api-v1 §2.1).
    static func validRequestId(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return value
    }

    func render(_ error: APIError, requestId: String) -> Response {
        var headers = HTTPFields()
        let (contentType, body) = dialect.errorBody(error, requestId: requestId)
        headers[.contentType] = contentType
        if let retryAfter = error.retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        for (name, value) in error.headers { headers[name] = value }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func notFound(_ request: Request, requestId: String) -> Response {
        guard dialect.unknownRouteIsPlainText else {
            return render(
                APIError(.notFound, "no route for \(request.method.rawValue) \(request.uri.path)"), requestId: requestId
            )
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "404 page not found")))
    }

    /// A trailing slash's redirect (`Dialect.redirectsTrailingSlash`): 301 for GET, 307 otherwise.
    private static func trailingSlashRedirect(_ request: Request) -> Response? {
        let path = request.uri.path
        guard path.count > 1, path.hasSuffix("/") else { return nil }
        var headers = HTTPFields()
        headers[.location] = String(path.dropLast()) + (request.uri.query.map { "?\($0)" } ?? "")
        return Response(status: request.method == .get ? .movedPermanently : .temporaryRedirect, headers: headers)
    }
}

extension HTTPField.Name {
    /// A header name known to be a valid token.
    private static func constant(_ name: String) -> HTTPField.Name {
        guard let field = HTTPField.Name(name) else { preconditionFailure("invalid header name \(name)") }
        return field
    }

    static let requestID = constant("X-Request-ID")
    static let idempotencyKey = constant("Idempotency-Key")
    static let idempotencyReplayed = constant("Idempotency-Replayed")
    static let legacyIdempotencyReplayed = constant("X-Idempotency-Replayed")
    static let rateLimitLimit = constant("RateLimit-Limit")
    static let rateLimitRemaining = constant("RateLimit-Remaining")
    static let rateLimitReset = constant("RateLimit-Reset")
    static let legacyRateLimitLimit = constant("X-RateLimit-Limit")
    static let legacyRateLimitRemaining = constant("X-RateLimit-Remaining")
    static let trendyFault = constant("X-Trendy-Fault")
    static let trendyFeatures = constant(ServerFeatures.headerName)
    static let trendyHistory = constant(ServerHistory.headerName)
    static let trendyFeedPosition = constant(FeedPosition.headerName)
    static let trendyDeletedAt = constant(DeleteAnswer.headerName)
    static let trendyQueuedFor = constant(ResentCreate.headerName)
    static let trendyDevice = constant(DeviceHeader.headerName)
    static let nextAfter = constant("X-Next-After")
    static let lastEventID = constant("Last-Event-ID")
    static let xAccelBuffering = constant("X-Accel-Buffering")
}
