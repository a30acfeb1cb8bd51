import Foundation
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// No client without a valid token can hold memory or connections (docs/security.md): the token
/// is checked from the head before any body is read, heads and bodies have deadlines that a byte at a time cannot
/// stretch, connections are capped (`/health` still answered beyond the caps), and an answer after which the server
/// closes says `Connection: close`.
@Suite("Connection safety")
struct ConnectionSafetyTests {
    static func port(_ server: LiveTrendyServer) throws -> Int {
        try #require(server.root.url.port)
    }

    static func head(_ method: String, _ path: String, token: String? = nil, extra: [String] = []) -> String {
        ([method + " " + path + " HTTP/1.1", "Host: 127.0.0.1"] + (token.map { ["Authorization: Bearer \($0)"] } ?? [])
            + extra).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// The head of a `POST` of a JSON body of `length` bytes to `path`.
    static func postHead(_ path: String, token: String?, length: Int) -> String {
        head("POST", path, token: token, extra: ["Content-Type: application/json", "Content-Length: \(length)"])
    }

    @Test("without a valid token the answer comes from the head alone; the body is never waited for")
    func authenticatesBeforeTheBody() async throws {
        try await LiveTrendyServer.with { server in
            let port = try Self.port(server)
            let declared = Self.postHead("/api/v1/events", token: "wrong", length: 1_000_000)
            let missing = Self.head("POST", "/api/v1/events", extra: ["Transfer-Encoding: chunked"])
            for head in [declared, missing] {
                let answer = try await onOwnThread {
                    let connection = try RawConnection(port: port)
                    connection.send(head)
                    let answer = try connection.readAnswer()
                    return (answer, connection.closedByServer())
                }
                let parsed = try #require(RawSocket.parse(answer.0), "an answer without a byte of body sent")
                #expect(parsed.status == 401 && parsed.headers["connection"] == "close", "\(parsed.headers)")
                #expect(answer.1, "the connection closes instead of draining an unread body")
            }
            let tooLarge = try await onOwnThread {
                let connection = try RawConnection(port: port)
                connection.send(Self.head("POST", "/api/v1/events", extra: ["Content-Length: 9000000"]))
                return try connection.readAnswer()
            }
            #expect(RawSocket.parse(tooLarge)?.status == 413, "a declared body too large: 413 even without a token")
        }
    }

    @Test("a small body after a refused token is discarded and the connection kept, so the client reads its 401")
    func smallRefusedBodyKeepsTheConnection() async throws {
        try await LiveTrendyServer.with { server in
            let port = try Self.port(server)
            let token = server.newUser().token
            let body = #"{"name": "Tea", "color": "green", "icon": "leaf"}"#
            let answers = try await onOwnThread {
                let connection = try RawConnection(port: port)
                connection.send(Self.postHead("/api/v1/event-types", token: "wrong", length: body.utf8.count) + body)
                let refused = try connection.readAnswer()
                connection.send(Self.head("GET", "/api/v1/event-types", token: token))
                return (refused, try connection.readAnswer())
            }
            let refused = try #require(RawSocket.parse(answers.0))
            #expect(refused.status == 401 && refused.headers["connection"] == nil)
            #expect(RawSocket.parse(answers.1)?.status == 200, "the same connection serves the next request")
        }
    }

    @Test("a body trickled a byte at a time is cut at --body-timeout with 408; nothing is written")
    func slowBody() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.bodyTimeoutSeconds = 1
        try await LiveTrendyServer.with(configuration) { server in
            let port = try Self.port(server)
            let token = server.newUser().token
            let body = #"{"name": "Slow", "color": "black", "icon": "cup"}"#
            let answer = try await onOwnThread {
                let connection = try RawConnection(port: port)
                connection.send(Self.postHead("/api/v1/event-types", token: token, length: body.utf8.count))
                // One byte every 100 ms: the idle timeout (60 s) never fires; the whole would take 5 s.
                for byte in body.utf8.dropLast() {
                    guard connection.send([byte]) else { break }
                    Thread.sleep(forTimeInterval: 0.1)
                }
                return (try connection.readAnswer(), connection.closedByServer())
            }
            let parsed = try #require(RawSocket.parse(answer.0))
            #expect(parsed.status == 408 && parsed.headers["connection"] == "close")
            #expect(answer.1)
            let types = try await RawHTTP.send("GET", server.root.text + "/api/v1/event-types", token: token)
            #expect(types.text == "[]", "the cut request wrote nothing")
        }
    }

    @Test("a head trickled a byte at a time is closed at --idle-timeout, though bytes keep arriving")
    func slowHead() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.idleTimeoutSeconds = 1
        try await LiveTrendyServer.with(configuration) { server in
            let port = try Self.port(server)
            let closed = try await onOwnThread {
                let connection = try RawConnection(port: port)
                // 100 bytes at one per 100 ms would take 10 s; each arrives well within the idle timeout.
                for byte in Array("GET /health HTTP/1.1\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 78) {
                    guard connection.send([byte]) else { return true }
                    Thread.sleep(forTimeInterval: 0.1)
                }
                return connection.closedByServer()
            }
            #expect(closed)
        }
    }

    @Test("beyond --max-unauthenticated-connections: /health still answered, anything else 503, then closed")
    func connectionCaps() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.maxConnections = 4
        configuration.maxUnauthenticatedConnections = 2
        try await LiveTrendyServer.with(configuration) { server in
            let port = try Self.port(server)
            let token = server.newUser().token
            let holders = [try RawConnection(port: port), try RawConnection(port: port)]
            try await waitUntil("both held connections are counted") { server.server.connectionCounts.open == 2 }
            #expect(server.server.connectionCounts.unauthenticated == 2)

            let health = try await onOwnThread {
                try RawSocket.exchange(port: port, Array(Self.head("GET", "/health").utf8))
            }
            let healthAnswer = try #require(RawSocket.parse(health))
            #expect(healthAnswer.status == 200 && healthAnswer.headers["connection"] == "close")
            let refused = try await onOwnThread {
                try RawSocket.exchange(port: port, Array(Self.head("GET", "/api/v1/event-types", token: token).utf8))
            }
            let refusedAnswer = try #require(RawSocket.parse(refused))
            #expect(refusedAnswer.status == 503 && refusedAnswer.headers["retry-after"] == "1")
            #expect(refusedAnswer.headers["connection"] == "close")
            #expect(String(decoding: refusedAnswer.body, as: UTF8.self).contains("urn:trendy:error:unavailable"))

            // A held connection authenticates: it no longer counts as unauthenticated, so a new one is admitted.
            let first = holders[0]
            let answered = try await onOwnThread {
                first.send(Self.head("GET", "/api/v1/event-types", token: token))
                return try first.readAnswer()
            }
            #expect(RawSocket.parse(answered)?.status == 200)
            #expect(server.server.connectionCounts.unauthenticated == 1)
            let admitted = try await onOwnThread {
                try RawSocket.exchange(
                    port: port,
                    Array(Self.head("GET", "/api/v1/event-types", token: token, extra: ["Connection: close"]).utf8))
            }
            let admittedAnswer = try #require(RawSocket.parse(admitted))
            #expect(admittedAnswer.status == 200 && admittedAnswer.headers["connection"] == "close")
            // Held open to here: an optimized build ends a value's lifetime at its last use, and `_ = holders`
            // is no use (the second holder's socket closed as soon as the first was read from).
            withExtendedLifetime(holders) {}
        }
    }
}
