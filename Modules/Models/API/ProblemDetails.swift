import Foundation

/// An error body (api-v1 §8.1): RFC 9457 problem+json on our server, or the original backend's legacy
/// `{"error": "…"}`. Both decode into this type; `parse(_:)` tells which kind a body is.
public struct ProblemDetails: Sendable, Hashable {
    /// `urn:trendy:error:<code>`; nil for a legacy body.
    public var type: String?
    /// A short summary, fixed per type (api-v1 §8.2).
    public var title: String?
    /// The HTTP status.
    public var status: Int?
    /// What went wrong, for a human.
    public var detail: String?
    /// Legacy member; equals `detail` on our server.
    public var error: String?
    /// The `X-Request-ID` of the request, to find it in the server's logs.
    public var requestId: String?
    /// The failing fields of a validation or conflict error.
    public var errors: [FieldError]
    /// The caller's entity that holds the conflicting id, name or timestamp.
    public var existingId: String?
    /// Seconds to wait before trying again (429, 503, 409 `idempotency_in_flight`).
    public var retryAfter: Int?
    /// `authenticate` on a 401.
    public var action: String?
    /// A message safe to show in a UI.
    public var userMessage: String?
    /// With `deleted` (api-v1 §6.6): when the entity was deleted, as RFC 3339 text.
    public var deletedAt: String?

    /// A body of these members.
    public init(
        type: String? = nil,
        title: String? = nil,
        status: Int? = nil,
        detail: String? = nil,
        error: String? = nil,
        requestId: String? = nil,
        errors: [FieldError] = [],
        existingId: String? = nil,
        retryAfter: Int? = nil,
        action: String? = nil,
        userMessage: String? = nil,
        deletedAt: String? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.error = error
        self.requestId = requestId
        self.errors = errors
        self.existingId = existingId
        self.retryAfter = retryAfter
        self.action = action
        self.userMessage = userMessage
        self.deletedAt = deletedAt
    }

    /// What every problem type of our server begins with.
    public static let typePrefix = "urn:trendy:error:"

    /// The `<code>` of `urn:trendy:error:<code>`, else the whole type string.
    public var problemCode: String? {
        guard let type else { return nil }
        return type.hasPrefix(Self.typePrefix) ? String(type.dropFirst(Self.typePrefix.count)) : type
    }

    /// The human message: `detail`, else `error`, else `title`.
    public var message: String? { detail ?? error ?? title }
}

extension ProblemDetails: Codable {
    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, error, errors, action
        case requestId = "request_id"
        case existingId = "existing_id"
        case retryAfter = "retry_after"
        case userMessage = "user_message"
        case deletedAt = "deleted_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try? container.decodeIfPresent(String.self, forKey: .type)
        title = try? container.decodeIfPresent(String.self, forKey: .title)
        status = try? container.decodeIfPresent(Int.self, forKey: .status)
        detail = try? container.decodeIfPresent(String.self, forKey: .detail)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
        requestId = try? container.decodeIfPresent(String.self, forKey: .requestId)
        errors = ((try? container.decodeIfPresent([FieldError].self, forKey: .errors)) ?? nil) ?? []
        existingId = try? container.decodeIfPresent(String.self, forKey: .existingId)
        retryAfter = try? container.decodeIfPresent(Int.self, forKey: .retryAfter)
        action = try? container.decodeIfPresent(String.self, forKey: .action)
        userMessage = try? container.decodeIfPresent(String.self, forKey: .userMessage)
        deletedAt = try? container.decodeIfPresent(String.self, forKey: .deletedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(requestId, forKey: .requestId)
        if !errors.isEmpty { try container.encode(errors, forKey: .errors) }
        try container.encodeIfPresent(existingId, forKey: .existingId)
        try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        try container.encodeIfPresent(action, forKey: .action)
        try container.encodeIfPresent(userMessage, forKey: .userMessage)
        try container.encodeIfPresent(deletedAt, forKey: .deletedAt)
    }
}

extension ProblemDetails {
    /// The kind of an error body, decided from its JSON content only (never from `Content-Type`, api-v1 §8.4).
    public enum Kind: Sendable, Hashable {
        /// A JSON object with a string `type`.
        case problem(ProblemDetails)
        /// A JSON object with a string `error` and no `type`.
        case legacy(ProblemDetails)
        /// Empty, plain text, HTML or any other JSON.
        case unstructured
    }

    /// What kind of error body `body` is, with its members when it is one.
    public static func parse(_ body: [UInt8]) -> Kind {
        guard !body.isEmpty,
            let json = try? JSONCoding.decode(JSONValue.self, from: .init(body)),
            json.objectValue != nil,
            let details = try? JSONCoding.decode(ProblemDetails.self, from: .init(body))
        else { return .unstructured }
        if json["type"]?.stringValue != nil { return .problem(details) }
        if json["error"]?.stringValue != nil { return .legacy(details) }
        return .unstructured
    }
}

/// One failing field of a validation or conflict error (api-v1 §8.3).
public struct FieldError: Sendable, Hashable, Codable {
    /// A path relative to the body, e.g. `timestamp` or `properties.mood`.
    public var field: String
    /// What is wrong with it, for a human.
    public var message: String
    /// What is wrong with it, for a program (`required`, `too_long`, `duplicate`, …).
    public var code: String

    /// A failing field.
    public init(field: String, message: String, code: String) {
        self.field = field
        self.message = message
        self.code = code
    }
}
