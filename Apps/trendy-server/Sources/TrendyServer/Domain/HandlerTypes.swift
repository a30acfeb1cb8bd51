import Foundation
import HTTPTypes
import Models

/// What a route handler sees: the authenticated user, the server's current time, and the request's parts.
struct APIRequest: Sendable {
    let userId: String
    /// The server clock, at millisecond precision.
    let now: Int64
    let body: [UInt8]
    /// `body` as JSON when the idempotency fingerprint has parsed it already; nil when nothing has.
    var parsedBody: JSONValue? = nil
    let query: [String: String]
    let parameters: [String: String]
    let quirks: ServerConfiguration.Quirks
    /// The most bytes a listing page holds (`ServerConfiguration.maxPageBytes`): a page that would pass it ends
    /// early, with the listing's sign that more follows (`has_more`, `X-Next-After`).
    var pageBytes = ServerConfiguration.defaultMaxPageBytes

    var original: Bool { quirks == .original }

    /// A path id, lowercased; a malformed id finds nothing (404), like an unknown one.
    func pathId(_ name: String, _ what: String) throws(APIError) -> String {
        guard let id = parameters[name], UUIDText.isCanonical(id) else { throw Quirk.notFound(what, self) }
        return id.lowercased()
    }
}

/// A successful answer: status and JSON body (empty for 204).
struct APIResponse: Sendable {
    var status: HTTPResponse.Status
    var body: [UInt8]
    /// What the handler saw that `/metrics` reports.
    var observation: Observation?
    /// Headers of the answer besides the ones every answer gets (`X-Next-After`).
    var headers: [(HTTPField.Name, String)] = []

    enum Observation: Sendable {
        /// A change-feed page: its size, and the `created_at` (ms) of its oldest change.
        case feedPage(changes: Int, oldestCreatedAt: Int64?)
        case batch(items: Int)
    }

    init(status: HTTPResponse.Status, body: [UInt8], observation: Observation? = nil) {
        self.status = status
        self.body = body
        self.observation = observation
    }

    static func json<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) throws -> APIResponse {
        APIResponse(status: status, body: Array(try JSONCoding.encode(value)))
    }

    static let noContent = APIResponse(status: .noContent, body: [])
}

/// Behaviours of the original backend that `--quirks original` reproduces (api-v1 §12.1).
enum Quirk {
    /// 404 on ours; the original answers 500 with a "… not found" message on PUT, DELETE and the property list.
    static func notFound(_ what: String, _ request: APIRequest, asServerError: Bool = false) -> APIError {
        var error = APIError.notFound(what)
        if request.original && asServerError { error.statusOverride = .internalServerError }
        return error
    }

    /// 409 on ours; the original answers 500 with PostgreSQL's duplicate-key text.
    static func conflict(_ error: APIError, _ request: APIRequest) -> APIError {
        guard request.original else { return error }
        var quirk = APIError(
            .internal, "pq: duplicate key value violates unique constraint (SQLSTATE 23505)")
        quirk.statusOverride = .internalServerError
        return quirk
    }
}

/// Milliseconds ↔ API dates.
extension Int64 {
    var date: Date { Date(millisecondsSince1970: self) }
}

// MARK: - Change log

/// Appends change-feed rows inside the writing transaction (api-v1 §6.2).
enum ChangeLog {
    static func append(
        _ db: any StorageTransaction, user: String, type: MutationEntityType, operation: MutationOperation,
        entityId: String, data: JSONValue?, now: Int64
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO changes (user_id, entity_type, operation, entity_id, data, deleted_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                user, type.rawValue, operation.rawValue, entityId, data.map(JSONText.string),
                operation == .delete ? now : nil, now,
            ])
    }

    /// The snapshot `data` of a create or update row (api-v1 §6.3); the original omits nulls and empty maps.
    static func snapshot<Value: Encodable>(_ value: Value, type: MutationEntityType, original: Bool) throws -> JSONValue
    {
        try ChangeSnapshot.data(value, of: type, explicitNulls: !original)
    }
}

// MARK: - Users

enum Users {
    /// Creates the user on its first authenticated request (api-v1 §10).
    static func ensure(_ db: any StorageTransaction, id: String, now: Int64) throws {
        try db.execute(
            sql: "INSERT INTO users (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", arguments: [id, now])
    }
}
