import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

/// The digest is a property of the data, not of the storage (api-v1 §14): the same requests
/// against trendy-server on SQLite and on PostgreSQL give the same digest, bucket for bucket. The values are the
/// ones a storage could spell differently: fractional seconds, doubles that do not round-trip through decimal text
/// naively, non-ASCII text, escapes, nested property values, removed keys and a deleted entity.
@Suite("Digest across storages")
struct DigestAcrossStoragesTests {
    @Test(
        "equal data gives equal digests on SQLite and PostgreSQL",
        .requiresPostgreSQL)
    func equalOnBothStorages() async throws {
        var sqlite = LiveTrendyServer.testConfiguration()
        sqlite.storage = .inMemory
        var postgres = LiveTrendyServer.testConfiguration()
        postgres.storage = try #require(LiveTrendyServer.postgresTestStorage())
        let requests = Self.requests()
        try await LiveTrendyServer.with(sqlite) { onSQLite in
            try await LiveTrendyServer.with(postgres) { onPostgres in
                let sqliteDigest = try await Self.digest(after: requests, on: onSQLite)
                let postgresDigest = try await Self.digest(after: requests, on: onPostgres)
                #expect(sqliteDigest.count == 5, "a type, two events (a third deleted), a geofence, a definition")
                #expect(sqliteDigest.hash == postgresDigest.hash)
                #expect(sqliteDigest.count == postgresDigest.count)
                #expect(sqliteDigest.types == postgresDigest.types)
                #expect(sqliteDigest.buckets == postgresDigest.buckets)
            }
        }
    }

    /// Creates, updates and a delete with fixed ids, so that both servers receive the same bytes.
    static func requests() -> [(method: String, path: String, body: String?)] {
        let type = "0190f5c0-3f00-7a11-8b22-0000000000a1"
        let events = (1...3).map { "0190f5c0-3f00-7a11-8b22-0000000000b\($0)" }
        let fence = "0190f5c0-3f00-7a11-8b22-0000000000c1"
        let definition = "0190f5c0-3f00-7a11-8b22-0000000000d1"
        return [
            (
                "POST", "/api/v1/event-types",
                ##"{"id":"\##(type)","name":"Café ☕︎ \"quoted\"","color":"#336699","icon":"cup"}"##
            ),
            (
                "POST", "/api/v1/events",
                #"{"id":"\#(events[0])","event_type_id":"\#(type)","timestamp":"2026-01-02T03:04:05.678Z","#
                    + #""notes":"line\nbreak\ttab 😀","is_all_day":false,"source_type":"manual","#
                    + #""properties":{"km":{"type":"number","value":0.1},"big":{"type":"number","value":1e21},"#
                    + #""tiny":{"type":"number","value":1.5e-7},"tags":{"type":"text","value":"ä\u0001"}}}"#
            ),
            (
                "POST", "/api/v1/events",
                #"{"id":"\#(events[1])","event_type_id":"\#(type)","timestamp":"2026-01-02T03:04:05Z","#
                    + #""end_date":"2026-01-02T04:00:00.5Z","is_all_day":true,"source_type":"manual"}"#
            ),
            (
                "POST", "/api/v1/events",
                #"{"id":"\#(events[2])","event_type_id":"\#(type)","timestamp":"2026-01-03T00:00:00Z","#
                    + #""is_all_day":false,"source_type":"manual"}"#
            ),
            (
                "POST", "/api/v1/geofences",
                #"{"id":"\#(fence)","name":"Gym","latitude":52.520008,"longitude":-13.404954,"radius":120.25,"#
                    + #""event_type_entry_id":"\#(type)","notify_on_entry":true}"#
            ),
            (
                "POST", "/api/v1/event-types/\(type)/properties",
                #"{"id":"\#(definition)","event_type_id":"\#(type)","key":"mood","label":"Mood","#
                    + #""property_type":"select","options":["low","high"],"display_order":2}"#
            ),
            (
                "PUT", "/api/v1/events/\(events[0])",
                #"{"notes":"edited","properties_patch":{"tags":null,"nested":{"type":"text","value":"x"}}}"#
            ),
            ("PUT", "/api/v1/geofences/\(fence)", #"{"radius":80}"#),
            (
                "PUT", "/api/v1/property-definitions/\(definition)",
                #"{"label":"Mood ☁︎","options":["low","mid","high"]}"#
            ),
            ("DELETE", "/api/v1/events/\(events[2])", nil),
        ]
    }

    static func digest(
        after requests: [(method: String, path: String, body: String?)], on server: LiveTrendyServer
    ) async throws -> SyncDigest {
        let token = server.newUser().token
        for request in requests {
            let answer = try await RawHTTP.send(
                request.method, server.root.text + request.path, token: token,
                headers: ["Idempotency-Key": UUID().uuidString, "Content-Type": "application/json"],
                body: request.body.map(RawHTTP.json))
            #expect((200..<300).contains(answer.status), "\(request.method) \(request.path): \(answer.text)")
        }
        let answer = try await RawHTTP.send("GET", server.root.text + "/api/v1/sync/digest", token: token)
        #expect(answer.status == 200, "\(answer.text)")
        return try JSONDecoder().decode(SyncDigest.self, from: answer.body)
    }
}
