import Foundation
import Models
import TrendyServer
import TrendyServerTesting

/// A live server plus one user, for raw HTTP tests.
struct ServerHarness {
    let server: LiveTrendyServer
    let token: String

    static func with(
        _ configuration: ServerConfiguration = LiveTrendyServer.testConfiguration(),
        _ body: (ServerHarness) async throws -> Void
    ) async throws {
        try await LiveTrendyServer.with(configuration) { server in
            // Long-lived: some tests move the server's clock by days.
            let token = server.token(for: UUID().uuidString.lowercased(), expiresIn: 90 * 86_400)
            try await body(ServerHarness(server: server, token: token))
        }
    }

    func send(
        _ method: String, _ path: String, json: String? = nil, body: Data? = nil, token: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> RawHTTP.Response {
        try await RawHTTP.send(
            method, server.root.text + path, token: token ?? self.token, headers: headers,
            body: body ?? json.map { Data($0.utf8) })
    }

    /// Creates an event type and returns its id.
    @discardableResult
    func eventType(_ name: String = "Coffee", id: String = UUIDv7.generate(at: Date())) async throws -> String {
        let response = try await send(
            "POST", "/api/v1/event-types", json: #"{"id":"\#(id)","name":"\#(name)","color":"black","icon":"cup"}"#)
        guard response.status == 201 else { throw SetupError(message: response.text) }
        return id
    }

    /// The number of change-feed rows of this user.
    func feedCount() async throws -> Int {
        let response = try await send("GET", "/api/v1/changes?since=0&limit=500")
        return (response.json?["changes"] as? [Any])?.count ?? -1
    }

    static func newId() -> String { UUIDv7.generate(at: Date()) }

    struct SetupError: Error {
        let message: String
    }
}

extension RawHTTP.Response {
    /// The problem type code of a problem+json body.
    var problemType: String? {
        (json?["type"] as? String).map { $0.replacingOccurrences(of: "urn:trendy:error:", with: "") }
    }

    var fieldCodes: [String] { ((json?["errors"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String } }
    var fields: [String] { ((json?["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String } }
}
