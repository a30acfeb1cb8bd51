import Foundation
import HTTPTypes
import Models

/// An error answer: an RFC 9457 problem (api-v1 §8), or the original backend's legacy body in quirks mode.
struct APIError: Error {
    /// The `<code>` of `urn:trendy:error:<code>`.
    enum Kind: String, Sendable {
        case badRequest = "bad_request"
        case validation
        case invalidUUID = "invalid_uuid"
        case futureTimestamp = "future_timestamp"
        case unauthorized
        case deviceRevoked = "device_revoked"
        case notFound = "not_found"
        /// A 404 for an entity the user had and deleted (api-v1 §6.6), apart from one the server never knew.
        case deleted
        case conflict
        case idempotencyInFlight = "idempotency_in_flight"
        case cursorExpired = "cursor_expired"
        case payloadTooLarge = "payload_too_large"
        case idempotencyMismatch = "idempotency_mismatch"
        case rateLimit = "rate_limit"
        case streamLimit = "stream_limit"
        case requestTimeout = "request_timeout"
        case `internal`
        case unavailable

        var status: HTTPResponse.Status {
            switch self {
            case .badRequest, .validation, .invalidUUID, .futureTimestamp: .badRequest
            case .unauthorized, .deviceRevoked: .unauthorized
            case .notFound, .deleted: .notFound
            case .conflict, .idempotencyInFlight: .conflict
            case .cursorExpired: .gone
            case .payloadTooLarge: .contentTooLarge
            case .idempotencyMismatch: .unprocessableContent
            case .rateLimit, .streamLimit: .tooManyRequests
            case .requestTimeout: .requestTimeout
            case .internal: .internalServerError
            case .unavailable: .serviceUnavailable
            }
        }

        var title: String {
            switch self {
            case .badRequest: "Bad Request"
            case .validation: "Validation Error"
            case .invalidUUID: "Invalid UUID Format"
            case .futureTimestamp: "Future Timestamp Not Allowed"
            case .unauthorized: "Authentication Required"
            case .deviceRevoked: "Device Revoked"
            case .notFound: "Resource Not Found"
            case .deleted: "Resource Deleted"
            case .conflict: "Resource Conflict"
            case .idempotencyInFlight: "Request In Progress"
            case .cursorExpired: "Cursor Expired"
            case .payloadTooLarge: "Payload Too Large"
            case .idempotencyMismatch: "Idempotency Key Reused"
            case .rateLimit: "Rate Limit Exceeded"
            case .streamLimit: "Too Many Streams"
            case .requestTimeout: "Request Timeout"
            case .internal: "Internal Server Error"
            case .unavailable: "Service Unavailable"
            }
        }
    }

    var kind: Kind
    var detail: String
    var errors: [FieldError] = []
    var existingId: String?
    var retryAfter: Int?
    /// Extra response headers (rate-limit headers, `WWW-Authenticate`, the fault marker).
    var headers: [(HTTPField.Name, String)] = []
    /// Overrides the status (quirks mode answers 500 where ours answers 404 or 409).
    var statusOverride: HTTPResponse.Status?
    /// With `deleted`: when, in milliseconds since 1970.
    var deletedAt: Int64?

    init(_ kind: Kind, _ detail: String, errors: [FieldError] = [], existingId: String? = nil, retryAfter: Int? = nil) {
        self.kind = kind
        self.detail = detail
        self.errors = errors
        self.existingId = existingId
        self.retryAfter = retryAfter
    }

    var status: HTTPResponse.Status { statusOverride ?? kind.status }

    static func notFound(_ what: String) -> APIError { APIError(.notFound, "\(what) not found") }

    /// The entity existed and was deleted at `milliseconds` (api-v1 §6.6).
    static func deleted(_ what: String, at milliseconds: Int64) -> APIError {
        var error = APIError(
            .deleted, "\(what) was deleted at \(RFC3339.string(fromMilliseconds: milliseconds))")
        error.deletedAt = milliseconds
        return error
    }

    /// A `since` above every change the database holds: it went back to a backup or was reset (api-v1 §6.5).
    static func cursorAhead(_ since: Int64) -> APIError {
        APIError(
            .cursorExpired,
            "the cursor \(since) is ahead of this server's change history (restored from a backup or reset); bootstrap")
    }

    /// A `since` whose change is not the one `since_created_at` names: the history went back and was written again
    /// (api-v1 §6.5).
    static func cursorMoved(_ since: Int64) -> APIError {
        APIError(
            .cursorExpired,
            "the change at cursor \(since) is not the one this device saw (the server was restored from a backup); "
                + "bootstrap")
    }

    /// A request from a device its user revoked (api-v1 §16): it must sign in again, as a new device.
    static var deviceRevoked: APIError {
        var error = APIError(
            .deviceRevoked,
            "this device's access was revoked by its user; sign in again (trendyctl login) to sync as a new device")
        error.headers = [(.wwwAuthenticate, "Bearer")]
        return error
    }

    /// A position with its time whose change is no longer kept: compaction removed it while the device was not seen
    /// for the expiry time, or the database went back to a backup (api-v1 §6.5, §6.8).
    static func cursorNotKept(_ since: Int64) -> APIError {
        APIError(
            .cursorExpired,
            "the change at cursor \(since) is no longer kept (compacted while this device was away, or the server was "
                + "restored from a backup); bootstrap")
    }

    static func validation(_ errors: [FieldError]) -> APIError {
        let detail =
            errors.count == 1
            ? errors[0].message : "\(errors.count) fields are invalid: \(errors.map(\.field).joined(separator: ", "))"
        return APIError(.validation, detail, errors: errors)
    }

    /// A uniqueness or id collision. Every conflict detail contains "duplicate" (api-v1 §8.1).
    static func conflict(code: String, field: String, detail: String, existingId: String?) -> APIError {
        APIError(
            .conflict, "duplicate \(detail)",
            errors: [FieldError(field: field, message: "duplicate \(detail)", code: code)],
            existingId: existingId)
    }

    /// The problem body: `error` equals `detail`, `request_id` equals the header.
    func problemBody(requestId: String) -> ProblemDetails {
        ProblemDetails(
            type: ProblemDetails.typePrefix + kind.rawValue, title: kind.title, status: Int(status.code),
            detail: detail, error: detail, requestId: requestId, errors: errors, existingId: existingId,
            retryAfter: retryAfter, action: kind == .unauthorized || kind == .deviceRevoked ? "authenticate" : nil,
            deletedAt: deletedAt.map(RFC3339.string(fromMilliseconds:)))
    }
}
