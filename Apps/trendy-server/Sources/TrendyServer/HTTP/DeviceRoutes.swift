import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Models

/// `GET /api/v1/devices` and `DELETE /api/v1/devices/{id}` (api-v1 §16): an account's devices, and revoking one.
/// Outside the transaction-per-request routes: a revoke also ends the device's streams.
enum DeviceRoutes {
    static let path = "/api/v1/devices"

    static func list(_ context: APIContext, _ pipeline: Pipeline) async throws -> Response {
        guard pipeline.dialect.announcesFeatures else { throw APIError.notFound("route") }
        let user = context.userId
        let seenSince = pipeline.now - Int64(pipeline.configuration.deviceExpiryDays) * 86_400_000
        let list = try await pipeline.storage.read { db in try Devices.list(user: user, seenSince: seenSince, db) }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONCoding.encode(list))))
    }

    /// 204 once revoked (again: still 204), 404 for an id the user has no device of. The device's requests are
    /// refused from now on, and its streams end at once with `event: reauth` (api-v1 §13).
    static func revoke(_ context: APIContext, _ pipeline: Pipeline) async throws -> Response {
        guard pipeline.dialect.announcesFeatures else { throw APIError.notFound("route") }
        let user = context.userId
        guard let id = context.parameters.get("id"), let device = UUID(uuidString: id) else {
            throw APIError.notFound("device")
        }
        let key = DeviceRegistry.Key(user: user, device: device.uuidString.lowercased())
        let now = pipeline.now
        let known = try await pipeline.storage.write(user: nil) { db in
            try Devices.revoke(user: key.user, device: key.device, now: now, db)
        }
        guard known else { throw APIError.notFound("device") }
        pipeline.devices.revoked(key)
        pipeline.streams.credentialsChanged()
        pipeline.logger.notice("a device was revoked", metadata: ["user": "\(user)", "device": "\(key.device)"])
        return Response(status: .noContent)
    }
}
