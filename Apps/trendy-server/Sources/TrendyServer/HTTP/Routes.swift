import Foundation
import HTTPTypes
import Hummingbird
import Models

/// Every in-scope endpoint of api-v1 §1. Anything else falls through to a 404 `not_found`.
enum Routes {
    static let all: [Route] =
        collection("/api/v1/event-types", list: EventTypes.list, create: EventTypes.create)
        + item("/api/v1/event-types", get: EventTypes.objects.get, put: EventTypes.update, delete: EventTypes.delete)
        + collection(
            "/api/v1/event-types/:id/properties", list: PropertyDefinitions.list, create: PropertyDefinitions.create)
        + item(
            "/api/v1/property-definitions", get: PropertyDefinitions.objects.get, put: PropertyDefinitions.update,
            delete: PropertyDefinitions.delete)
        + collection("/api/v1/events", list: Events.list, create: Events.create)
        + [Route(method: .post, path: "/api/v1/events/batch", handler: Events.batch)]
        + item("/api/v1/events", get: Events.get, put: Events.update, delete: Events.delete)
        + collection("/api/v1/geofences", list: Geofences.list, create: Geofences.create)
        + item("/api/v1/geofences", get: Geofences.objects.get, put: Geofences.update, delete: Geofences.delete)
        + [
            Route(method: .get, path: "/api/v1/changes", handler: ChangeFeed.page),
            Route(method: .get, path: "/api/v1/changes/latest-cursor", handler: ChangeFeed.latestCursor),
            Route(method: .get, path: "/api/v1/sync/digest", handler: SyncDigests.digest),
            Route(method: .post, path: GiveBacks.path, handler: GiveBacks.giveBack),
        ]

    typealias Handler = @Sendable (APIRequest, any StorageTransaction) throws -> APIResponse

    /// `GET` and `POST` on a collection.
    private static func collection(_ path: String, list: @escaping Handler, create: @escaping Handler) -> [Route] {
        [Route(method: .get, path: path, handler: list), Route(method: .post, path: path, handler: create)]
    }

    /// `GET`, `PUT` and `DELETE` on one member of a collection, `{path}/:id`.
    private static func item(
        _ path: String, get: @escaping Handler, put: @escaping Handler, delete: @escaping Handler
    ) -> [Route] {
        [
            Route(method: .get, path: path + "/:id", handler: get),
            Route(method: .put, path: path + "/:id", handler: put),
            Route(method: .delete, path: path + "/:id", handler: delete),
        ]
    }

    /// `GET /api/v1/changes/stream` (api-v1 §13): a streaming answer, outside the transaction-per-request `all`.
    static let changeStream = "/api/v1/changes/stream"

    /// The `/api/v1` routes outside `all`, as `METHOD template`: the stream, and the devices (api-v1 §16), whose
    /// revoke also ends streams.
    static let outsideTransactions = [
        "GET \(changeStream)", "GET \(DeviceRoutes.path)", "DELETE \(DeviceRoutes.path)/:id",
    ]

    static func router(pipeline: Pipeline, middleware: APIMiddleware, metrics: ServerMetrics) -> Router<APIContext> {
        let router = Router(context: APIContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: middleware)
        router.get("/health") { _, _ in try await health(pipeline) }
        // Prometheus text format; like /health, no authentication: counts and timings only, no user data.
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
        // The API routes run behind the pipeline's middlewares; /health and /metrics do not.
        let api = router.group()
        func add(_ middleware: some RouterMiddleware<APIContext>) { api.add(middleware: middleware) }
        for middleware in pipeline.middlewares() { add(middleware) }
        api.get(RouterPath(changeStream)) { request, context in
            try await ChangeStream.respond(request, context, pipeline)
        }
        api.get(RouterPath(DeviceRoutes.path)) { _, context in try await DeviceRoutes.list(context, pipeline) }
        api.delete(RouterPath(DeviceRoutes.path + "/:id")) { _, context in
            try await DeviceRoutes.revoke(context, pipeline)
        }
        for route in all {
            api.on(RouterPath(route.path), method: route.method) { request, context in
                try await pipeline.respond(route, request, context)
            }
        }
        return router
    }

    /// `GET /health`: no auth, rate limit, faults or idempotency; 503 when the database cannot be read.
    static func health(_ pipeline: Pipeline) async throws -> Response {
        do {
            _ = try await pipeline.storage.read { db in try db.value(Int.self, sql: "SELECT 1") }
        } catch {
            throw APIError(.unavailable, "the database is not available", retryAfter: 5)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let body = try JSONCoding.encode(HealthResponse(status: "ok", env: pipeline.configuration.environment))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
