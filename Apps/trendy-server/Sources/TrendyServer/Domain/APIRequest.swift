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
    /// Ours or the original backend's behaviour (`--quirks original`).
    let dialect: Dialect
    /// The most bytes a listing page holds (`ServerConfiguration.maxPageBytes`): a page that would pass it ends
    /// early, with the listing's sign that more follows (`has_more`, `X-Next-After`).
    var pageBytes = ServerConfiguration.defaultMaxPageBytes
    /// A write's `Trendy-Feed-Position` (api-v1 §6.7), checked in the write's transaction before anything else.
    var writePosition: FeedPosition? = nil
    /// When a re-sent create's creates were queued (api-v1 §7, `Trendy-Queued-For` before `now`), in milliseconds:
    /// the creates it writes count from then.
    var queuedAt: Int64? = nil

    /// A path id, lowercased; a malformed id finds nothing (404), like an unknown one.
    func pathId(_ name: String, _ what: String) throws(APIError) -> String {
        guard let id = parameters[name], UUIDText.isCanonical(id) else { throw dialect.notFound(what) }
        return id.lowercased()
    }
}
