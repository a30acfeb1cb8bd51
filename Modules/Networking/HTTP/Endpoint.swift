import Foundation

/// One API request before it is sent: method, path under `/api/v1` (or the root), query, body and key.
struct Endpoint: Sendable {
    enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
    }

    var method: Method
    /// Path segments after the API prefix, joined with `/`. Ids are lowercased; never a trailing slash.
    var path: String
    var query: [(name: String, value: String)] = []
    var body: Data?
    /// Required on POST and PUT, never sent on GET or DELETE (sync-engine §2.3).
    var idempotencyKey: String?
    /// A write says which feed position it was made from (`Trendy-Feed-Position`, api-v1 §6.7), so that a server
    /// that went back to a backup refuses it; the give-back, made for such a server, does not.
    var sendsFeedPosition = true
    /// When a re-sent create's creates were queued, sent as how long before the request (`Trendy-Queued-For`,
    /// api-v1 §7); nil on a first send.
    var queuedAt: Date?

    static func get(_ path: String, query: [(name: String, value: String)] = []) -> Endpoint {
        Endpoint(method: .get, path: path, query: query)
    }

    static func delete(_ path: String) -> Endpoint { Endpoint(method: .delete, path: path) }

    static func post(_ path: String, body: Data, key: String, queuedAt: Date? = nil) -> Endpoint {
        Endpoint(method: .post, path: path, body: body, idempotencyKey: key, queuedAt: queuedAt)
    }

    static func put(_ path: String, body: Data, key: String) -> Endpoint {
        Endpoint(method: .put, path: path, body: body, idempotencyKey: key)
    }

    /// `root/api/v1/<path>?<query>`, percent-encoding query values (a `+` becomes `%2B`).
    func url(root: URL) -> URL? {
        var text = root.absoluteString + "/api/v1/" + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&")
        }
        return URL(string: text)
    }

    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// A path segment for an id: lowercase, percent-encoded (ids from callers are not trusted to be UUIDs).
func segment(_ id: String) -> String { Endpoint.encode(id.lowercased()) }
