import Foundation
import Models
import Networking
import Protocols
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// `GET /api/v1/changes/stream` (api-v1 §13) on the wire: headers, keep-alives, caps, expiry, retention and
/// shutdown. Entries themselves are held to the feed by the NetworkClient contract ("N9 …").
@Suite("Change stream")
struct ChangeStreamTests {
    static func request(_ token: String, query: String = "", headers: [String] = []) -> String {
        (["GET /api/v1/changes/stream\(query) HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer \(token)"]
            + headers).joined(separator: "\r\n") + "\r\n\r\n"
    }

    static func client(_ server: LiveTrendyServer, token: String) throws -> APIClient {
        APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root),
            tokenProvider: StaticTokenProvider(token))
    }

    @Test(
        "api-v1 §13 headers: event-stream, no-store, X-Accel-Buffering off, the features; a ping after the quiet period"
    )
    func headersAndKeepAlive() async throws {
        let (configuration, clock) = manualClockConfiguration {
            $0.streamKeepaliveSeconds = 15
        }
        try await LiveTrendyServer.with(configuration) { server in
            let user = UUID().uuidString.lowercased()
            let token = BearerTokens.hs256(
                user: user, secret: LiveTrendyServer.testSecret, expiresAt: clock.now().addingTimeInterval(3600))
            let stream = try RawStream(port: server.root.url.port ?? 0, Self.request(token))
            try await stream.read(until: ": open\n\n")
            let head = try #require(RawSocket.parse(stream.received))
            #expect(head.status == 200)
            #expect(head.headers["content-type"] == "text/event-stream")
            #expect(head.headers["cache-control"] == "no-store")
            #expect(head.headers["x-accel-buffering"] == "no")
            #expect(head.headers["trendy-features"]?.contains("stream") == true)
            #expect(!stream.text.contains(": ping"))
            clock.advance(by: 14)
            server.server.tickStreams()
            clock.advance(by: 1)
            server.server.tickStreams()
            #expect(try await stream.read(until: ": ping\n\n"), "a keep-alive after 15 s without an event")
        }
    }

    @Test("api-v1 §13 Last-Event-ID wins over since")
    func lastEventIdWins() async throws {
        try await LiveTrendyServer.with { server in
            let user = server.newUser()
            let client = try Self.client(server, token: user.token)
            for name in ["a", "b", "c"] {
                _ = try await client.createEventType(
                    CreateEventTypeRequest(id: nil, name: name, color: "#000000", icon: "i"))
            }
            let stream = try RawStream(
                port: server.root.url.port ?? 0,
                Self.request(user.token, query: "?since=0", headers: ["Last-Event-ID: 2"]))
            try await stream.read(until: "id: 3\n")
            #expect(!stream.text.contains("id: 1\n") && !stream.text.contains("id: 2\n"))
        }
    }

    @Test("api-v1 §13 caps: a user's streams beyond the cap get 429 stream_limit with Retry-After; the server's, 503")
    func caps() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.maxStreamsPerUser = 2
        configuration.maxStreams = 3
        try await LiveTrendyServer.with(configuration) { server in
            let alice = try Self.client(server, token: server.newUser().token)
            let first = StreamRecorder(alice.changeStream(since: 0))
            let second = StreamRecorder(alice.changeStream(since: 0))
            try await first.wait { $0.isOpened }
            try await second.wait { $0.isOpened }
            let refused = StreamRecorder(alice.changeStream(since: 0))
            guard case .failure(.http(let failure)) = try await refused.waitForEnd() else {
                Issue.record("expected a 429, got \(refused.snapshot)")
                return
            }
            #expect(failure.status == 429 && failure.problemType == "stream_limit")
            #expect(failure.retryAfter != nil)

            let bob = try Self.client(server, token: server.newUser().token)
            let third = StreamRecorder(bob.changeStream(since: 0))
            try await third.wait { $0.isOpened }
            let full = StreamRecorder(bob.changeStream(since: 0))
            guard case .failure(.http(let busy)) = try await full.waitForEnd() else {
                Issue.record("expected a 503, got \(full.snapshot)")
                return
            }
            #expect(busy.status == 503)

            // A closed stream frees its place.
            first.cancel()
            try await waitUntil("two open streams") { server.server.openStreamCount == 2 }
            let again = StreamRecorder(alice.changeStream(since: 0))
            try await again.wait { $0.isOpened }
            for recorder in [second, third, again] { recorder.cancel() }
        }
    }

    @Test("api-v1 §13 re-auth: the stream closes after `event: reauth` when the token expires")
    func reauthAtExpiry() async throws {
        let (configuration, clock) = manualClockConfiguration()
        try await LiveTrendyServer.with(configuration) { server in
            let token = BearerTokens.hs256(
                user: UUID().uuidString.lowercased(), secret: LiveTrendyServer.testSecret,
                expiresAt: clock.now().addingTimeInterval(60))
            let recorder = StreamRecorder(try Self.client(server, token: token).changeStream(since: 0))
            try await recorder.wait { $0.isOpened }
            server.server.tickStreams()
            clock.advance(by: 61)
            server.server.tickStreams()
            let end = try await recorder.waitForEnd()
            #expect(recorder.snapshot.events.last == .reauth)
            #expect((try? end.get()) != nil, "a clean close after reauth")
        }
    }

    /// The stream ends before it opens, with a 410 `cursor_expired`: the client bootstraps (api-v1 §6.5).
    static func expectCursorExpired(_ recorder: StreamRecorder) async throws {
        guard case .failure(.http(let failure)) = try await recorder.waitForEnd() else {
            Issue.record("expected a 410, got \(recorder.snapshot)")
            return
        }
        #expect(failure.status == 410 && failure.problemType == "cursor_expired")
        #expect(!recorder.snapshot.isOpened)
    }

    @Test("api-v1 §13 a cursor below the retention watermark: 410 cursor_expired before the stream starts")
    func expiredCursor() async throws {
        let (configuration, clock) = manualClockConfiguration {
            $0.changelogRetentionDays = 1
        }
        try await LiveTrendyServer.with(configuration) { server in
            let token = BearerTokens.hs256(
                user: UUID().uuidString.lowercased(), secret: LiveTrendyServer.testSecret,
                expiresAt: clock.now().addingTimeInterval(30 * 86_400))
            let client = try Self.client(server, token: token)
            _ = try await client.createEventType(
                CreateEventTypeRequest(id: nil, name: "old", color: "#000000", icon: "i"))
            clock.advance(by: 2 * 86_400)
            try await server.server.runMaintenance()
            try await Self.expectCursorExpired(StreamRecorder(client.changeStream(since: 0)))
        }
    }

    @Test("api-v1 §13 a cursor above every change (a restored or reset database): 410 cursor_expired, no stream")
    func cursorAhead() async throws {
        try await LiveTrendyServer.with(LiveTrendyServer.testConfiguration()) { server in
            let client = try Self.client(server, token: server.newUser().token)
            _ = try await client.createEventType(
                CreateEventTypeRequest(id: nil, name: "kept", color: "#000000", icon: "i"))
            let latest = try await client.getLatestCursor()
            try await Self.expectCursorExpired(StreamRecorder(client.changeStream(since: latest + 5)))
        }
    }

    @Test("api-v1 §13 the original's quirks have no stream: 404, and no `stream` feature")
    func originalHasNoStream() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.quirks = .original
        try await LiveTrendyServer.with(configuration) { server in
            let recorder = StreamRecorder(try Self.client(server, token: server.newUser().token).changeStream(since: 0))
            guard case .failure(.http(let failure)) = try await recorder.waitForEnd() else {
                Issue.record("expected a 404, got \(recorder.snapshot)")
                return
            }
            #expect(failure.status == 404)
        }
    }

    @Test("api-v1 §13 stopping the server ends its streams at once (no wait for idle streams)")
    func shutdownEndsStreams() async throws {
        let server = try await LiveTrendyServer.start()
        let recorder = StreamRecorder(try Self.client(server, token: server.newUser().token).changeStream(since: 0))
        try await recorder.wait { $0.isOpened }
        await server.stop()
        try await recorder.waitForEnd()
        #expect(server.server.openStreamCount == 0)
    }
}

/// api-v1 §13 "Other instances": a stream on one instance carries the commits of another, through NOTIFY, and
/// through the re-read when every notification is lost.
@Suite("Change stream across instances")
struct ChangeStreamAcrossInstancesTests {
    @Test(
        "a stream on instance A gets B's commits, once and in order, with or without notifications",
        .requiresPostgreSQL,
        arguments: [true, false])
    func otherInstancesCommits(hearsNotifications: Bool) async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.storage = try #require(LiveTrendyServer.postgresTestStorage())
        var deaf = configuration
        deaf.testHooks.hearsCommitNotifications = hearsNotifications
        try await LiveTrendyServer.with(deaf) { reader in
            try await LiveTrendyServer.with(configuration) { writer in
                let token = reader.newUser().token
                let recorder = StreamRecorder(try ChangeStreamTests.client(reader, token: token).changeStream(since: 0))
                defer { recorder.cancel() }
                try await recorder.wait { $0.isOpened }
                let client = try ChangeStreamTests.client(writer, token: token)
                var ids: [String] = []
                for index in 0..<5 {
                    ids.append(
                        try await client.createEventType(
                            CreateEventTypeRequest(id: nil, name: "t\(index)", color: "#000000", icon: "i")
                        ).id)
                }
                let changes = try await recorder.waitForChanges(5)
                #expect(changes.map(\.entityId) == ids)
                #expect(changes.map(\.id) == changes.map(\.id).sorted())
            }
        }
    }
}
