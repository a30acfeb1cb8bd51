import Foundation
import HTTPTypes
import HummingbirdTesting
import Models
import NIOCore
import Testing
import TrendyServer
import TrendyServerTesting

/// `buildApplication(configuration:)`, as an embedder composes the server: HummingbirdTesting drives it without a
/// socket, and its services (maintenance, the database's lifetime) start and stop with it.
@Suite("The server as a Hummingbird application")
struct ApplicationTests {
    @Test("buildApplication(configuration:) serves the API through the router: health, 401, a write and its read")
    func composes() async throws {
        let user = UUID().uuidString.lowercased()
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.staticTokens["embedder"] = user
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"ok\""))
            }
            try await client.execute(uri: "/api/v1/event-types", method: .get) { response in
                #expect(response.status == .unauthorized && response.headers[.wwwAuthenticate] == "Bearer")
            }
            let id = UUIDv7.generate(at: Date())
            let body = #"{"id":"\#(id)","name":"Tea","color":"green","icon":"leaf"}"#
            try await client.execute(
                uri: "/api/v1/event-types", method: .post,
                headers: [.authorization: "Bearer embedder", .contentType: "application/json"],
                body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .created)
            }
            try await client.execute(
                uri: "/api/v1/event-types/\(id)", method: .get, headers: [.authorization: "Bearer embedder"]
            ) { response in
                #expect(response.status == .ok && String(buffer: response.body).contains("\"Tea\""))
            }
        }
    }
}
