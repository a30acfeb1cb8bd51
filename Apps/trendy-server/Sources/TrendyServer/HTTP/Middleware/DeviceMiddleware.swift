import Foundation
import Hummingbird
import Models
import Protocols

/// After authentication and the rate limit (api-v1 §2.2, §16): reads `Trendy-Device`, refuses a device its user
/// revoked, and records the sighting. A request without the header is served as before and records nothing: the original backend's clients
/// and older ones do not send it.
struct DeviceMiddleware: RouterMiddleware {
    typealias Context = APIContext

    let registry: DeviceRegistry
    let clock: any SyncClock

    func handle(
        _ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.trendyDevice] else { return try await next(request, context) }
        guard let device = DeviceHeader(header: header) else {
            throw APIError(
                .badRequest,
                "\(DeviceHeader.headerName) must be UUID; client=NAME/VERSION (1–64 visible characters) (api-v1 §16)")
        }
        let key = DeviceRegistry.Key(user: context.userId, device: device.id.uuidString.lowercased())
        try registry.refuseRevoked(key)
        try await registry.saw(key, client: device.client, now: clock.now().millisecondsSince1970)
        var context = context
        context.device = key
        return try await next(request, context)
    }
}
