import Hummingbird

/// Counts and times every answer by method, route template and status. Outermost, so it sees the status the client
/// gets, error bodies included.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        metrics.request(
            method: request.method.rawValue, route: context.endpointPath ?? "unmatched",
            status: response.status.code, duration: ContinuousClock.now - started)
        return response
    }
}
