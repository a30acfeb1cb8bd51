import Foundation

/// A non-2xx HTTP answer, after the client's own retries (sync-engine §2.3).
public struct HTTPFailure: Sendable, Equatable {
    /// The HTTP status code, 300 or above.
    public var status: Int
    /// The `<code>` of a problem type `urn:trendy:error:<code>`, e.g. `conflict` or `idempotency_in_flight`.
    public var problemType: String?
    /// The problem's `detail`, else the legacy `error`, else `title`.
    public var message: String?
    /// Seconds from the `Retry-After` header (delta-seconds or HTTP-date), else the body's `retry_after`.
    public var retryAfter: TimeInterval?
    /// The problem's `existing_id`: the caller's entity that holds the conflicting id, name or timestamp.
    public var existingId: String?
    /// A 404 `deleted`'s `deleted_at` (api-v1 §6.6): when the caller's delete of the entity was made.
    public var deletedAt: Date?
    /// The `X-Request-ID` the client sent, so a failure can be found in the server's logs. An addition to the
    /// five members of sync-engine §2.3; nil for failures that did not come from a real request (mocks).
    public var requestId: String?

    /// A failure of `status`; the rest is what the answer said, when it said it.
    public init(
        status: Int, problemType: String? = nil, message: String? = nil, retryAfter: TimeInterval? = nil,
        existingId: String? = nil, deletedAt: Date? = nil, requestId: String? = nil
    ) {
        self.status = status
        self.problemType = problemType
        self.message = message
        self.retryAfter = retryAfter
        self.existingId = existingId
        self.deletedAt = deletedAt
        self.requestId = requestId
    }
}

/// Every error a `NetworkClientProtocol` implementation throws (sync-engine §2.3).
public enum NetworkError: Error, Sendable, Equatable {
    /// No HTTP response: timeout, connection refused or lost, DNS, TLS.
    case transport(String)
    /// A non-2xx answer.
    case http(HTTPFailure)
    /// A 2xx body that is not the expected JSON (e.g. a captive portal's HTML).
    case decoding(status: Int, message: String)
    /// Something that is not an HTTP response at all.
    case invalidResponse
    /// The calling task was cancelled.
    case cancelled

    /// The HTTP status, when the server answered.
    public var status: Int? {
        switch self {
        case .http(let failure): failure.status
        case .decoding(let status, _): status
        default: nil
        }
    }

    /// The server's answer when the error is one (`http`); nil for transport, decoding and other errors.
    public var httpFailure: HTTPFailure? {
        if case .http(let failure) = self { return failure }
        return nil
    }
}

extension NetworkError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .transport(let message): "cannot reach the server: \(message)"
        case .http(let failure):
            "HTTP \(failure.status)" + (failure.message.map { ": \($0)" } ?? "")
        case .decoding(let status, let message): "unexpected response body (HTTP \(status)): \(message)"
        case .invalidResponse: "the server's answer was not an HTTP response"
        case .cancelled: "cancelled"
        }
    }
}

extension NetworkError: LocalizedError {
    public var errorDescription: String? { description }
}
