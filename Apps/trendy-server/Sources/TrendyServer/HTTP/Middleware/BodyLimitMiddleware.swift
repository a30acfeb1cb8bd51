import HTTPTypes
import Hummingbird

/// api-v1 §2.2, first: a body that declares more than `--max-body` bytes is a 413 at once, before anything is read
/// and even without a token. The body itself is read only after authentication (`BodyLimitMiddleware`), so a client
/// without a valid token never has a body buffered.
struct DeclaredBodyLimitMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let maxBytes: Int

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBytes {
            // The body is not buffered; the connection discards it after the answer, within --body-timeout. Closing
            // at once instead would reset a client still sending it, which might then never read the 413.
            throw BodyLimitMiddleware.tooLarge(maxBytes)
        }
        return try await next(request, context)
    }
}

/// api-v1 §2.2, after authentication: the whole body is read (up to `--max-body`), so a chunked body that grows
/// too large is a 413 too. Later steps and the handler read the collected body. How long the body may take is the
/// connection's business (`ConnectionGuard`, `--body-timeout`).
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let maxBytes: Int

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        do {
            _ = try await request.collectBody(upTo: maxBytes)
        } catch {
            throw Self.tooLarge(maxBytes)
        }
        return try await next(request, context)
    }

    static func tooLarge(_ maxBytes: Int) -> APIError {
        APIError(.payloadTooLarge, "the request body is larger than \(maxBytes / 1_048_576) MiB; send smaller batches")
    }
}
