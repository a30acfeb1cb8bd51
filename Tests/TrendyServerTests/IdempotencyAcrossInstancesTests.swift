import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

/// Idempotency records live in the database, so every instance answers a key the same way (docs/server.md, several instances).
@Suite("Idempotency across instances")
struct IdempotencyAcrossInstancesTests {
    @Test(
        "a key answered by one instance is replayed by the other; the same key sent to both at once is run once",
        .requiresPostgreSQL)
    func sharedRecords() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.storage = try #require(LiveTrendyServer.postgresTestStorage())
        try await LiveTrendyServer.with(configuration) { first in
            try await LiveTrendyServer.with(configuration) { second in
                let token = first.newUser().token
                func create(_ server: LiveTrendyServer, key: String, id: String) async throws -> RawHTTP.Response {
                    try await RawHTTP.send(
                        "POST", server.root.text + "/api/v1/event-types", token: token,
                        headers: ["Idempotency-Key": key],
                        body: RawHTTP.json(#"{"id":"\#(id)","name":"Tea \#(key)","color":"green","icon":"leaf"}"#))
                }
                let id = ServerHarness.newId()
                let original = try await create(first, key: "k1", id: id)
                let replayed = try await create(second, key: "k1", id: id)
                #expect(original.status == 201 && replayed.status == 201)
                #expect(replayed.header("Idempotency-Replayed") == "true" && replayed.body == original.body)

                // Both instances at once, ten times: each key creates one type, and every answer is its answer or
                // 409 in flight.
                for round in 0..<10 {
                    let key = "race-\(round)"
                    let raceId = ServerHarness.newId()
                    async let a = create(first, key: key, id: raceId)
                    async let b = create(second, key: key, id: raceId)
                    let answers = try await [a, b]
                    for answer in answers {
                        #expect(
                            answer.status == 201 || answer.problemType == "idempotency_in_flight",
                            "\(answer.status) \(answer.text)")
                    }
                }
                let feed = try await RawHTTP.send(
                    "GET", second.root.text + "/api/v1/changes?since=0&limit=500", token: token)
                #expect((feed.json?["changes"] as? [Any])?.count == 11, "one create per key: \(feed.text.prefix(300))")
            }
        }
    }
}
