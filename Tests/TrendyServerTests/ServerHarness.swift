import Foundation
import HTTPTypes
import HummingbirdTesting
import Models
import NIOCore
import NIOFoundationCompat
import TestSupport
import TrendyServer
import TrendyServerTesting

/// One server and one user, for HTTP tests. By default requests go through HummingbirdTesting's router client:
/// the whole application (middleware, routes, storage) without a socket. Tests about the socket itself — connection
/// handling, raw bytes, the client library — ask for `.socket`, a `LiveTrendyServer` on 127.0.0.1.
struct ServerHarness: Sendable {
    enum Transport: Sendable {
        case router
        case socket
    }

    let server: TrendyServer
    let token: String
    /// The root URL; only with `.socket`.
    let root: ServerRoot?
    private let client: (any TestClientProtocol)?

    static func with(
        _ configuration: ServerConfiguration = LiveTrendyServer.testConfiguration(), transport: Transport = .router,
        _ body: (ServerHarness) async throws -> Void
    ) async throws {
        // Long-lived: some tests move the server's clock by days.
        let token = token(for: UUID().uuidString.lowercased(), expiresIn: 90 * 86_400)
        switch transport {
        case .socket:
            try await LiveTrendyServer.with(configuration) { live in
                try await body(ServerHarness(server: live.server, token: token, root: live.root, client: nil))
            }
        case .router:
            let server = try await TrendyServer(
                configuration: configuration, logger: LiveTrendyServer.testLogger(label: "trendy-server"))
            // The body runs here, in the test's own context (it need not be Sendable); the router client comes out
            // of `test(.router)`, which keeps the application's services running until the body is done.
            let (clients, handOver) = AsyncStream<any TestClientProtocol>.makeStream()
            let (done, finish) = AsyncStream<Void>.makeStream()
            let application = Task {
                defer { handOver.finish() }
                try await server.buildApplication().test(.router) { client in
                    handOver.yield(client)
                    for await _ in done {}
                }
            }
            var handed = clients.makeAsyncIterator()
            guard let client = await handed.next() else {
                try await application.value
                throw SetupError(message: "the application did not start")
            }
            do {
                try await body(ServerHarness(server: server, token: token, root: nil, client: client))
            } catch {
                finish.finish()
                _ = try? await application.value
                throw error
            }
            finish.finish()
            try await application.value
        }
    }

    /// A bearer token for `user` (a new user is created by its first request).
    static func token(for user: String, expiresIn seconds: TimeInterval = 3600) -> String {
        BearerTokens.hs256(
            user: user, secret: LiveTrendyServer.testSecret, expiresAt: Date().addingTimeInterval(seconds))
    }

    /// A fresh user id and its token.
    func newUser() -> (id: String, token: String) {
        let id = UUID().uuidString.lowercased()
        return (id, Self.token(for: id))
    }

    /// `headers` are set after the `Authorization` of `token` (so they can replace it); `authenticated: false`
    /// sends no `Authorization` at all.
    func send(
        _ method: String, _ path: String, json: String? = nil, body: Data? = nil, token: String? = nil,
        headers: [String: String] = [:], authenticated: Bool = true
    ) async throws -> RawHTTP.Response {
        let token = authenticated ? token ?? self.token : nil
        let payload = body ?? json.map { Data($0.utf8) }
        guard let client else {
            guard let root else { throw SetupError(message: "no transport") }
            return try await RawHTTP.send(method, root.text + path, token: token, headers: headers, body: payload)
        }
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { throw SetupError(message: "bad header name \(name)") }
            fields[field] = value
        }
        if let payload { fields[.contentLength] = "\(payload.count)" }
        let response = try await client.executeRequest(
            uri: path, method: HTTPRequest.Method(method) ?? .get, headers: fields,
            body: payload.map { ByteBuffer(bytes: $0) })
        var answer: [String: String] = [:]
        for field in response.headers { answer[field.name.canonicalName] = field.value }
        return RawHTTP.Response(status: Int(response.status.code), headers: answer, body: Data(buffer: response.body))
    }

    /// Creates an event type and returns its id.
    @discardableResult
    func eventType(_ name: String = "Coffee", id: String = UUIDv7.generate(at: Date())) async throws -> String {
        let response = try await send(
            "POST", "/api/v1/event-types", json: #"{"id":"\#(id)","name":"\#(name)","color":"black","icon":"cup"}"#)
        guard response.status == 201 else { throw SetupError(message: response.text) }
        return id
    }

    /// `POST /api/v1/events` of an event of `type` at 2026-01-01T00:00:00Z, with `id` when given and the JSON
    /// members `more` (", "-separated, as they stand in the object).
    func postEvent(id: String? = nil, type: String, _ more: String = "") async throws -> RawHTTP.Response {
        let idMember = id.map { #""id": "\#($0)", "# } ?? ""
        let extra = more.isEmpty ? "" : ", " + more
        return try await send(
            "POST", "/api/v1/events",
            json: #"{\#(idMember)"event_type_id": "\#(type)", "timestamp": "2026-01-01T00:00:00Z"\#(extra)}"#)
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

/// The test configuration on a manual clock starting now, with `adjust` applied: for tests that move time.
func manualClockConfiguration(
    _ adjust: (inout ServerConfiguration) -> Void = { _ in }
) -> (configuration: ServerConfiguration, clock: ManualClock) {
    let clock = ManualClock(now: Date())
    var configuration = LiveTrendyServer.testConfiguration()
    configuration.clock = clock
    adjust(&configuration)
    return (configuration, clock)
}
