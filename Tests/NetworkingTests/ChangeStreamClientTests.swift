import Foundation
import Models
import Networking
import Protocols
import Synchronization
import TestSupport
import Testing
import TrendyServerTesting

/// `APIClient.changeStream` (N9) against answers trendy-server does not give on its own: every line ending the
/// format allows, unknown events, a body cut in the middle of an event, a refusal, and a token refresh.
@Suite("APIClient change stream")
struct ChangeStreamClientTests {
    static func entry(_ id: Int) -> String {
        #"{"created_at":"2026-01-01T00:00:00.000Z","data":null,"deleted_at":"2026-01-01T00:00:00.000Z","#
            + #""entity_id":"0190f3f0-0000-7000-8000-00000000000\#(id)","entity_type":"event","id":\#(id),"#
            + #""operation":"delete","user_id":"u"}"#
    }

    static func client(_ root: ServerRoot, token: String = "t") throws -> APIClient {
        APIClient(configuration: try .init(serverRoot: root), tokenProvider: StaticTokenProvider(token))
    }

    @Test("LF, CRLF and CR line endings, comments and unknown events; a body cut inside an event is a drop")
    func parsesAndDetectsACut() async throws {
        let body =
            ": open\n\n" + "id: 1\nevent: change\ndata: \(Self.entry(1))\n\n"
            + "id: 2\r\nevent: change\r\ndata: \(Self.entry(2))\r\n\r\n" + "event: future\rdata: {}\r\r"
            + "id: 3\nevent: change\ndata: {\"created_at\":\"2026"
        let answer: StubHTTPServer.Handler = { request in
            #expect(request.headers["last-event-id"] == "0")
            #expect(request.headers["accept"] == "text/event-stream")
            return .init(status: 200, headers: ["Content-Type": "text/event-stream"], body: body)
        }
        try await StubHTTPServer.with(answer) { stub in
            let recorder = StreamRecorder(try Self.client(stub.root).changeStream(since: 0))
            guard case .failure(.transport) = try await recorder.waitForEnd() else {
                Issue.record("a cut event is a dropped stream: \(recorder.snapshot)")
                return
            }
            #expect(recorder.snapshot.events.first == .opened)
            #expect(recorder.snapshot.changes.map(\.id) == [1, 2], "the half event is not delivered")
        }
    }

    @Test("reset and reauth are delivered, then the stream ends cleanly")
    func controlEvents() async throws {
        for (event, expected) in [
            ("event: reset\ndata: {\"reason\":\"cursor_expired\"}\n\n", StreamEvent.reset(reason: "cursor_expired")),
            ("event: reauth\ndata: {}\n\n", StreamEvent.reauth),
        ] {
            let answer: StubHTTPServer.Handler = { _ in
                .init(status: 200, headers: ["Content-Type": "text/event-stream"], body: event)
            }
            try await StubHTTPServer.with(answer) { stub in
                let recorder = StreamRecorder(try Self.client(stub.root).changeStream(since: 7))
                let end = try await recorder.waitForEnd()
                #expect((try? end.get()) != nil)
                #expect(recorder.snapshot.events == [.opened, expected])
            }
        }
    }

    @Test("a refusal is the HTTP failure (problem type, Retry-After); a broken entry is a decoding error")
    func refusals() async throws {
        let answer: StubHTTPServer.Handler = { request in
            if request.query["since"] == "1" {
                return .init(status: 200, body: "event: change\ndata: {\"id\": \"x\"}\n\n")
            }
            return .init(
                status: 429, headers: ["Retry-After": "5", "Content-Type": "application/problem+json"],
                body:
                    #"{"type":"urn:trendy:error:stream_limit","title":"Too Many Streams","status":429,"detail":"d","error":"d"}"#
            )
        }
        try await StubHTTPServer.with(answer) { stub in
            let refused = StreamRecorder(try Self.client(stub.root).changeStream(since: 0))
            guard case .failure(.http(let failure)) = try await refused.waitForEnd() else {
                Issue.record("expected the 429: \(refused.snapshot)")
                return
            }
            #expect(failure.status == 429 && failure.problemType == "stream_limit" && failure.retryAfter == 5)
            #expect(!refused.snapshot.isOpened)

            let broken = StreamRecorder(try Self.client(stub.root).changeStream(since: 1))
            guard case .failure(.decoding) = try await broken.waitForEnd() else {
                Issue.record("expected a decoding error: \(broken.snapshot)")
                return
            }
        }
    }

    @Test("401: one token refresh, then the stream opens")
    func refreshesTheToken() async throws {
        try await LiveTrendyServer.with { server in
            let tokens = RotatingTokens(good: server.newUser().token)
            let api = APIClient(configuration: try .init(serverRoot: server.root), tokenProvider: tokens)
            let recorder = StreamRecorder(api.changeStream(since: 0))
            defer { recorder.cancel() }
            try await recorder.wait { $0.isOpened }
            #expect(tokens.refreshed.withLock { $0 } == 1)
        }
    }
}
