import Foundation
import Models
import Synchronization
import TestSupport
import Testing
import TrendyServerTesting

@testable import TrendyServer

@Suite("Rate limits, faults, idempotency and retention")
struct PolicyTests {
    @Test("the token bucket: RateLimit-* headers on counted answers; 429 with Retry-After; health and 401 not counted")
    func rateLimitHeaders() async throws {
        let (configuration, clock) = manualClockConfiguration {
            $0.rateLimitPerMinute = 3
        }
        try await ServerHarness.with(configuration) { harness in
            _ = try await harness.send("GET", "/health", authenticated: false)
            _ = try await harness.send("GET", "/api/v1/event-types", token: "wrong")
            var remaining: [String?] = []
            for _ in 0..<3 {
                let response = try await harness.send("GET", "/api/v1/event-types")
                #expect(response.status == 200 && response.header("RateLimit-Limit") == "3")
                remaining.append(response.header("RateLimit-Remaining"))
            }
            #expect(remaining == ["2", "1", "0"])
            let limited = try await harness.send("GET", "/api/v1/event-types")
            #expect(limited.status == 429 && limited.problemType == "rate_limit")
            #expect(limited.header("Retry-After") == "20" && limited.json?["retry_after"] as? Int == 20)
            #expect(limited.header("RateLimit-Remaining") == "0" && limited.header("RateLimit-Reset") == "60")
            clock.advance(by: 20)
            let refilled = try await harness.send("GET", "/api/v1/event-types")
            #expect(refilled.status == 200 && refilled.header("RateLimit-Remaining") == "0")
            let otherUser = try await harness.send("GET", "/api/v1/event-types", token: harness.newUser().token)
            #expect(otherUser.status == 200, "buckets are per user")
        }
    }

    @Test("failed authentication is throttled per address: 429 after N 401s, valid tokens still pass, refills")
    func authFailureThrottle() async throws {
        let (configuration, clock) = manualClockConfiguration {
            $0.authFailuresPerMinute = 3
        }
        try await ServerHarness.with(configuration, transport: .socket) { harness in
            for _ in 0..<3 {
                let refused = try await harness.send("GET", "/api/v1/event-types", token: "guess")
                #expect(refused.status == 401)
            }
            let throttled = try await harness.send("GET", "/api/v1/event-types", token: "guess")
            #expect(throttled.status == 429 && throttled.problemType == "rate_limit", "\(throttled.text)")
            #expect(throttled.header("Retry-After") == "20", "one failure refills in 60 s / 3")
            let valid = try await harness.send("GET", "/api/v1/event-types")
            #expect(valid.status == 200, "the real user's valid token is never locked out")
            let missing = try await harness.send("GET", "/api/v1/event-types", authenticated: false)
            #expect(missing.status == 429, "a missing token is a failure too")
            let health = try await harness.send("GET", "/health", authenticated: false)
            #expect(health.status == 200)
            clock.advance(by: 20)
            #expect(try await harness.send("GET", "/api/v1/event-types", token: "guess").status == 401)
            #expect(try await harness.send("GET", "/api/v1/event-types", token: "guess").status == 429)
        }
    }

    @Test("the throttle remembers a bounded number of addresses, forgetting refilled ones first")
    func authFailureThrottleIsBounded() {
        let throttle = AuthFailureThrottle(failuresPerMinute: 2, maximumAddresses: 100)
        let start = Date()
        for index in 0..<100 { _ = throttle.recordFailure(of: "10.0.0.\(index)", now: start) }
        #expect(throttle.trackedAddresses == 100)
        #expect(throttle.recordFailure(of: "10.0.0.0", now: start) == nil, "the second failure of two")
        #expect(throttle.recordFailure(of: "10.0.0.0", now: start) == 30, "a third waits 30 s")
        // A minute on, every bucket has refilled: they are forgotten to make room.
        _ = throttle.recordFailure(of: "192.0.2.1", now: start.addingTimeInterval(60))
        #expect(throttle.trackedAddresses == 1)
    }

    @Test("api-v1 §9: RateLimit-* headers on every counted answer: errors, replays and injected faults included")
    func rateLimitHeadersOnErrors() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.rateLimitPerMinute = 100
        configuration.clock = ManualClock(now: Date())
        try await ServerHarness.with(configuration) { harness in
            let missing = try await harness.send("GET", "/api/v1/events/\(ServerHarness.newId())")
            let invalid = try await harness.send("POST", "/api/v1/event-types", json: "{")
            let badId = try await harness.send("DELETE", "/api/v1/geofences/not-a-uuid")
            let body = #"{"id":"\#(ServerHarness.newId())","name":"Tea","color":"green","icon":"leaf"}"#
            _ = try await harness.send("POST", "/api/v1/event-types", json: body, headers: ["Idempotency-Key": "r"])
            let replay = try await harness.send(
                "POST", "/api/v1/event-types", json: body, headers: ["Idempotency-Key": "r"])
            let statuses: [Int] = [missing.status, invalid.status, badId.status, replay.status]
            #expect(statuses == [404, 400, 404, 201])
            let answers = [missing, invalid, badId, replay]
            #expect(answers.allSatisfy { $0.header("RateLimit-Limit") == "100" }, "api-v1 §9 on every counted answer")
            #expect(answers.compactMap { $0.header("RateLimit-Remaining") } == ["99", "98", "97", "95"])
            #expect(answers.allSatisfy { $0.header("RateLimit-Reset") != nil })
        }
        for fault in [\FaultConfiguration.probability429, \.probability500] {
            var faulty = LiveTrendyServer.testConfiguration()
            faulty.rateLimitPerMinute = 100
            faulty.faults[keyPath: fault] = 1
            try await ServerHarness.with(faulty) { harness in
                let injected = try await harness.send("GET", "/api/v1/event-types")
                #expect(injected.header("X-Trendy-Fault") == "\(injected.status)")
                #expect(
                    injected.header("RateLimit-Limit") == "100" && injected.header("RateLimit-Remaining") == "99",
                    "api-v1 §9 an injected \(injected.status) is a counted answer too")
            }
        }
    }

    @Test("api-v1 §7: Idempotency-Key is ignored on DELETE (a repeat runs again: 404) and on GET")
    func idempotencyIgnoredOnDeleteAndGet() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let first = try await harness.send(
                "DELETE", "/api/v1/event-types/\(type)", headers: ["Idempotency-Key": "d"])
            let repeated = try await harness.send(
                "DELETE", "/api/v1/event-types/\(type)", headers: ["Idempotency-Key": "d"])
            #expect(first.status == 204 && repeated.status == 404, "api-v1 §7 no replay of a DELETE")
            #expect(repeated.header("Idempotency-Replayed") == nil && repeated.header("X-Idempotency-Replayed") == nil)
            let before = try await harness.send("GET", "/api/v1/event-types", headers: ["Idempotency-Key": "g"])
            try await harness.eventType("Later")
            let after = try await harness.send("GET", "/api/v1/event-types", headers: ["Idempotency-Key": "g"])
            #expect(before.jsonArray?.count == 0 && after.jsonArray?.count == 1, "api-v1 §7 GET is never replayed")
            #expect(after.header("Idempotency-Replayed") == nil)
        }
    }

    @Test("--fault-seed makes injected faults repeatable, each marked X-Trendy-Fault")
    func faultSeed() async throws {
        func statuses(seed: UInt64) async throws -> [String] {
            var seen: [String] = []
            var configuration = LiveTrendyServer.testConfiguration()
            configuration.faults.probability429 = 0.3
            configuration.faults.probability500 = 0.3
            configuration.faults.seed = seed
            try await ServerHarness.with(configuration) { harness in
                for _ in 0..<24 {
                    let response = try await harness.send("GET", "/api/v1/changes/latest-cursor")
                    #expect(response.status == 200 || response.header("X-Trendy-Fault") == "\(response.status)")
                    seen.append("\(response.status)")
                }
            }
            return seen
        }
        let first = try await statuses(seed: 42)
        #expect(try await statuses(seed: 42) == first)
        #expect(Set(first) == ["200", "429", "500"], "the mix contains every outcome")
        #expect(try await statuses(seed: 7) != first)
    }

    @Test("--fault-500-path: every request on that route answers 500, every other is served")
    func failingPath() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.faults.failingPathSuffix = "/properties"
        try await ServerHarness.with(configuration) { harness in
            let type = ServerHarness.newId()
            let created = try await harness.send(
                "POST", "/api/v1/event-types", json: #"{"id":"\#(type)","name":"T","color":"black","icon":"x"}"#)
            #expect(created.status == 201, "another route is served")
            for _ in 0..<3 {
                let listed = try await harness.send("GET", "/api/v1/event-types/\(type)/properties")
                #expect(listed.status == 500 && listed.header("X-Trendy-Fault") == "500")
            }
        }
        var wrong = LiveTrendyServer.testConfiguration()
        wrong.faults.failingPathSuffix = "properties"
        #expect(throws: ConfigurationError.self) { try wrong.validate() }
    }

    @Test("--fault-drop: the write commits, the connection closes unanswered, and the key replays the answer")
    func faultDrop() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.faults.probabilityDrop = 1
        // A dropped answer is a closed connection: only a socket shows it.
        try await ServerHarness.with(configuration, transport: .socket) { harness in
            let id = ServerHarness.newId()
            let body = #"{"id":"\#(id)","name":"Dropped","color":"black","icon":"x"}"#
            await #expect(throws: (any Error).self) {
                _ = try await harness.send(
                    "POST", "/api/v1/event-types", json: body, headers: ["Idempotency-Key": "k1"])
            }
            let list = try await harness.send("GET", "/api/v1/event-types")
            #expect(list.jsonArray?.first?["id"] as? String == id, "the write committed")
        }
    }

    @Test("idempotency: byte-exact replay with both headers and a fresh request id; 422 for another body")
    func replays() async throws {
        try await ServerHarness.with { harness in
            let body = #"{"id":"\#(ServerHarness.newId())","name":"Tea","color":"green","icon":"leaf"}"#
            let first = try await harness.send(
                "POST", "/api/v1/event-types", json: body, headers: ["Idempotency-Key": "k"])
            let reordered = try await harness.send(
                "POST", "/api/v1/event-types",
                json: body.replacingOccurrences(of: #""color":"green","#, with: #" "color" : "green" ,"#),
                headers: ["Idempotency-Key": "k"])
            #expect(first.status == 201 && reordered.status == 201 && reordered.body == first.body)
            #expect(
                reordered.header("Idempotency-Replayed") == "true"
                    && reordered.header("X-Idempotency-Replayed") == "true")
            #expect(first.header("Idempotency-Replayed") == nil)
            #expect(reordered.header("X-Request-ID") != first.header("X-Request-ID"))
            let other = try await harness.send(
                "POST", "/api/v1/event-types", json: #"{"name":"Other","color":"black","icon":"x"}"#,
                headers: ["Idempotency-Key": "k"])
            #expect(other.status == 422 && other.problemType == "idempotency_mismatch")
            let elsewhere = try await harness.send(
                "POST", "/api/v1/geofences", json: #"{"name":"G","latitude":1,"longitude":1,"radius":100}"#,
                headers: ["Idempotency-Key": "k"])
            #expect(elsewhere.status == 201, "the same key on another path is unrelated")
            #expect(try await harness.feedCount() == 2)
        }
    }

    @Test("idempotency: a failed request stores nothing, so its retry runs afresh; records expire after 24 h")
    func failuresAndExpiry() async throws {
        let (configuration, clock) = manualClockConfiguration()
        try await ServerHarness.with(configuration) { harness in
            let type = ServerHarness.newId()
            let body =
                #"{"id":"\#(ServerHarness.newId())","event_type_id":"\#(type)","timestamp":"2026-01-01T00:00:00Z"}"#
            let missingType = try await harness.send(
                "POST", "/api/v1/events", json: body, headers: ["Idempotency-Key": "e"])
            #expect(missingType.status == 400)
            try await harness.eventType(id: type)
            let retried = try await harness.send(
                "POST", "/api/v1/events", json: body, headers: ["Idempotency-Key": "e"])
            #expect(retried.status == 201 && retried.header("Idempotency-Replayed") == nil)
            clock.advance(by: 24 * 3600 + 1)
            try await harness.server.runMaintenance()
            let afterExpiry = try await harness.send(
                "POST", "/api/v1/events", json: body, headers: ["Idempotency-Key": "e"])
            #expect(afterExpiry.status == 200, "an identical re-send, no longer a replay")
            #expect(afterExpiry.header("Idempotency-Replayed") == nil)
        }
    }

    @Test("api-v1 §7 restores: a create of a deleted id under a new key creates it again; its old key replays")
    func restoresUnderANewKey() async throws {
        try await ServerHarness.with(LiveTrendyServer.testConfiguration()) { harness in
            let type = try await harness.eventType()
            func item(_ id: String, _ second: Int) -> String {
                #"{"id":"\#(id)","event_type_id":"\#(type)","timestamp":"2026-01-01T00:00:0\#(second)Z","notes":"n"}"#
            }
            func batch(_ key: String, _ items: String...) async throws -> RawHTTP.Response {
                try await harness.send(
                    "POST", "/api/v1/events/batch", json: #"{"events":[\#(items.joined(separator: ","))]}"#,
                    headers: ["Idempotency-Key": key])
            }
            let (a, b) = (ServerHarness.newId(), ServerHarness.newId())
            #expect(try await batch("k1", item(a, 1), item(b, 2)).status == 201)
            #expect(try await harness.send("DELETE", "/api/v1/events/\(a)").status == 204)
            let feed = try await harness.feedCount()

            let replay = try await batch("k1", item(a, 1), item(b, 2))
            #expect(replay.status == 201 && replay.header("Idempotency-Replayed") == "true", "the old key replays")
            #expect(try await harness.send("GET", "/api/v1/events/\(a)").status == 404, "a replay writes nothing")
            #expect(try await harness.feedCount() == feed)

            let restore = try await batch("k2", item(a, 1))
            #expect(restore.status == 201 && restore.header("Idempotency-Replayed") == nil)
            #expect(try await harness.send("GET", "/api/v1/events/\(a)").status == 200, "restored")
            #expect(try await harness.feedCount() == feed + 1, "one feed row: the restore's create")
        }
    }

    @Test("idempotency: the same key while the first request runs is 409 in flight with Retry-After: 1")
    func inFlight() async throws {
        let gate = CallGate()
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.testHooks.beforeHandler = { method, _ in if method == "POST" { _ = await gate.pass() } }
        try await ServerHarness.with(configuration) { harness in
            let body = #"{"name":"Slow","color":"black","icon":"x"}"#
            let first = Task {
                try await harness.send("POST", "/api/v1/event-types", json: body, headers: ["Idempotency-Key": "slow"])
            }
            await gate.waitForArrivals(1)
            let second = try await harness.send(
                "POST", "/api/v1/event-types", json: body, headers: ["Idempotency-Key": "slow"])
            #expect(second.status == 409 && second.problemType == "idempotency_in_flight")
            #expect(second.header("Retry-After") == "1" && !second.text.contains("duplicate"))
            let mismatch = try await harness.send(
                "POST", "/api/v1/event-types", json: #"{"name":"Other","color":"black","icon":"x"}"#,
                headers: ["Idempotency-Key": "slow"])
            #expect(mismatch.status == 422)
            gate.release()
            #expect(try await first.value.status == 201)
        }
    }

    @Test("retention: below the pruning watermark /changes is 410 cursor_expired; latest-cursor is at least it")
    func retention() async throws {
        let (configuration, clock) = manualClockConfiguration {
            $0.changelogRetentionDays = 2
        }
        try await ServerHarness.with(configuration) { harness in
            try await harness.eventType("Old")
            try await harness.eventType("Older")
            clock.advance(by: 3 * 86_400)
            try await harness.eventType("New")
            try await harness.server.runMaintenance()
            let expired = try await harness.send("GET", "/api/v1/changes?since=0")
            #expect(expired.status == 410 && expired.problemType == "cursor_expired")
            let latest = try await harness.send("GET", "/api/v1/changes/latest-cursor")
            let cursor = try #require(latest.json?["cursor"] as? Int)
            let fromWatermark = try await harness.send("GET", "/api/v1/changes?since=\(cursor - 1)")
            #expect(fromWatermark.status == 200 && (fromWatermark.json?["changes"] as? [Any])?.count == 1)
        }
    }

    @Test(
        "api-v1 §6.6 a deleted id says deleted and when, through retention and cascades; a never-known id is a plain 404"
    )
    func tombstones() async throws {
        let (configuration, clock) = manualClockConfiguration {
            $0.changelogRetentionDays = 2
        }
        try await ServerHarness.with(configuration) { harness in
            let type = try await harness.eventType("Gone")
            let event = try #require(try await harness.postEvent(type: type).json?["id"] as? String)
            let kept = try await harness.eventType("Kept")
            let deleted = try await harness.send("DELETE", "/api/v1/event-types/\(type)")
            #expect(deleted.status == 204, "\(deleted)")
            let deletedAt = RFC3339.string(from: clock.now())
            clock.advance(by: 3 * 86_400)
            try await harness.eventType("Later")
            try await harness.server.runMaintenance()
            #expect(try await harness.send("GET", "/api/v1/changes?since=0").status == 410, "retention ran")

            // The type and, by cascade, its event: deleted, with the time of the delete.
            for (path, noun) in [("event-types/\(type)", "event type"), ("events/\(event)", "event")] {
                for method in ["GET", "PUT", "DELETE"] {
                    let answer = try await harness.send(method, "/api/v1/\(path)", json: method == "PUT" ? "{}" : nil)
                    #expect(answer.status == 404 && answer.problemType == "deleted", "\(method) \(path): \(answer)")
                    #expect(answer.json?["deleted_at"] as? String == deletedAt, "\(answer.text)")
                    #expect(answer.text.contains("\(noun) was deleted at \(deletedAt)"), "\(answer.text)")
                }
            }
            // Never known: a plain 404, also for another user's deleted id.
            let unknown = try await harness.send("GET", "/api/v1/event-types/\(ServerHarness.newId())")
            #expect(unknown.status == 404 && unknown.problemType == "not_found", "\(unknown)")
            let stranger = ServerHarness.token(for: UUID().uuidString.lowercased(), expiresIn: 90 * 86_400)
            let other = try await harness.send("GET", "/api/v1/event-types/\(type)", token: stranger)
            #expect(other.status == 404 && other.problemType == "not_found", "\(other)")
            #expect(try await harness.send("GET", "/api/v1/event-types/\(kept)").status == 200)

            // A restore (a create of the deleted id) brings it back; its next delete is remembered anew.
            try await harness.eventType("Gone", id: type)
            #expect(try await harness.send("GET", "/api/v1/event-types/\(type)").status == 200)
            clock.advance(by: 60)
            #expect(try await harness.send("DELETE", "/api/v1/event-types/\(type)").status == 204)
            let again = try await harness.send("GET", "/api/v1/event-types/\(type)")
            #expect(again.json?["deleted_at"] as? String == RFC3339.string(from: clock.now()), "\(again.text)")
        }
    }

    @Test("api-v1 §6.5 a cursor above every change (a database restored from a backup, or reset): 410 cursor_expired")
    func cursorAheadOfHistory() async throws {
        try await ServerHarness.with(LiveTrendyServer.testConfiguration()) { harness in
            try await harness.eventType("Kept")
            let latest = try await harness.send("GET", "/api/v1/changes/latest-cursor")
            let cursor = try #require(latest.json?["cursor"] as? Int)
            let upToDate = try await harness.send("GET", "/api/v1/changes?since=\(cursor)")
            #expect(upToDate.status == 200 && (upToDate.json?["changes"] as? [Any])?.isEmpty == true)
            let ahead = try await harness.send("GET", "/api/v1/changes?since=\(cursor + 5)")
            #expect(ahead.status == 410 && ahead.problemType == "cursor_expired", "\(ahead)")
            #expect(ahead.text.contains("ahead of this server's change history"), "\(ahead.text)")
        }
    }

    @Test(
        "api-v1 §6.5 since_created_at names the change of since by its time: the right time pages, another is 410 (SQLite)"
    )
    func cursorTimeOnSQLite() async throws {
        try await Self.expectCursorTimeChecked(LiveTrendyServer.testConfiguration())
    }

    @Test("api-v1 §6.5 since_created_at names the change of since by its time (PostgreSQL)", .requiresPostgreSQL)
    func cursorTimeOnPostgreSQL() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.storage = try #require(LiveTrendyServer.postgresTestStorage())
        try await Self.expectCursorTimeChecked(configuration)
    }

    /// latest-cursor answers the time of its change; a page from a cursor with the time it was sent pages on; with
    /// another time, on the feed and the stream, 410; with a time that is no RFC 3339, 400.
    static func expectCursorTimeChecked(_ configuration: ServerConfiguration) async throws {
        try await ServerHarness.with(configuration) { harness in
            try await harness.eventType("First")
            try await harness.eventType("Second")
            let rows = try await harness.send("GET", "/api/v1/changes?since=0")
            let first = try #require((rows.json?["changes"] as? [[String: Any]])?.first)
            let id = try #require(first["id"] as? Int)
            let time = try #require(first["created_at"] as? String)
            let latest = try await harness.send("GET", "/api/v1/changes/latest-cursor")
            #expect(latest.json?["created_at"] is String, "\(latest.text)")
            let next = try await harness.send("GET", "/api/v1/changes?since=\(id)&since_created_at=\(time)")
            #expect(next.status == 200 && (next.json?["changes"] as? [Any])?.count == 1, "\(next.text)")
            let other = try #require(RFC3339.date(from: time)).addingTimeInterval(-0.001)
            let query = "since=\(id)&since_created_at=\(RFC3339.string(from: other))"
            let moved = try await harness.send("GET", "/api/v1/changes?\(query)")
            #expect(moved.status == 410 && moved.problemType == "cursor_expired", "\(moved.text)")
            #expect(moved.text.contains("restored from a backup"), "\(moved.text)")
            let stream = try await harness.send("GET", "/api/v1/changes/stream?\(query)")
            #expect(stream.status == 410 && stream.problemType == "cursor_expired", "\(stream.text)")
            let garbled = try await harness.send("GET", "/api/v1/changes?since=\(id)&since_created_at=yesterday")
            #expect(garbled.status == 400 && garbled.problemType == "bad_request", "\(garbled.text)")
        }
    }
}
