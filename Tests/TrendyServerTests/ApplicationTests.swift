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

    @Test("/metrics: requests by route template and status, durations, feed page sizes and lag, batch sizes")
    func metrics() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.staticTokens["m"] = UUID().uuidString.lowercased()
        let server = try await TrendyServer(configuration: configuration)
        try await server.buildApplication().test(.router) { client in
            let auth: HTTPFields = [.authorization: "Bearer m", .contentType: "application/json"]
            let type = UUIDv7.generate(at: Date())
            _ = try await client.execute(
                uri: "/api/v1/event-types", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"id":"\#(type)","name":"Tea","color":"green","icon":"leaf"}"#))
            let events = (0..<3).map { index in
                #"{"id":"\#(UUIDv7.generate(at: Date()))","event_type_id":"\#(type)","timestamp":"2026-01-0\#(index + 1)T00:00:00Z"}"#
            }
            _ = try await client.execute(
                uri: "/api/v1/events/batch", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"events":[\#(events.joined(separator: ","))]}"#))
            _ = try await client.execute(uri: "/api/v1/changes?since=0", method: .get, headers: auth)
            _ = try await client.execute(uri: "/api/v1/event-types/\(type)", method: .get, headers: auth)
            _ = try await client.execute(uri: "/api/v1/event-types", method: .get)
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/plain") == true)
                for line in [
                    #"trendy_http_requests_total{method="POST",route="/api/v1/events/batch",status="201"} 1"#,
                    #"trendy_http_requests_total{method="GET",route="/api/v1/event-types/{id}",status="200"} 1"#,
                    #"trendy_http_requests_total{method="GET",route="/api/v1/event-types",status="401"} 1"#,
                    #"trendy_batch_events_sum 3"#, #"trendy_feed_page_changes_sum 4"#,
                    #"trendy_feed_lag_seconds_count 1"#,
                ] {
                    #expect(text.contains(line), "missing \(line) in\n\(text)")
                }
                #expect(text.contains("trendy_http_request_duration_seconds_bucket"))
                #expect(!text.contains(type), "route templates, never ids")
            }
        }
    }
}
