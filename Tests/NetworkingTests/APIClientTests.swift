import Foundation
import Models
import Networking
import Protocols
import Synchronization
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// What the server received, in order.
final class RequestLog: Sendable {
    private let entries = Mutex<[ServerConfiguration.ObservedRequest]>([])

    func record(_ request: ServerConfiguration.ObservedRequest) { entries.withLock { $0.append(request) } }
    var all: [ServerConfiguration.ObservedRequest] { entries.withLock { $0 } }

    /// A live server, configured further by `configure`, whose every request the log passed to `body` records.
    static func withServer<Result>(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (LiveTrendyServer, RequestLog) async throws -> Result
    ) async throws -> Result {
        let log = RequestLog()
        var configuration = LiveTrendyServer.testConfiguration()
        configure(&configuration)
        configuration.testHooks.observeRequest = log.record
        return try await LiveTrendyServer.with(configuration) { server in try await body(server, log) }
    }
}

/// Hands out a bad token first and a good one on refresh; counts refreshes.
final class RotatingTokens: TokenProvider {
    let good: String
    let refreshed = Mutex(0)
    let refreshSucceeds: Bool

    init(good: String, refreshSucceeds: Bool = true) {
        self.good = good
        self.refreshSucceeds = refreshSucceeds
    }

    func currentToken() async -> String? { refreshed.withLock { $0 } > 0 && refreshSucceeds ? good : "expired" }

    func refreshToken() async -> String? {
        refreshed.withLock { $0 += 1 }
        return refreshSucceeds ? good : "still-bad"
    }
}

@Suite("APIClient")
struct APIClientTests {
    func client(
        _ root: ServerRoot, token: String = "t", clock: any SyncClock = SystemClock(), retries: Int = 3
    )
        throws -> APIClient
    {
        APIClient(
            configuration: try APIClient.Configuration(serverRoot: root, maxRateLimitRetries: retries),
            tokenProvider: StaticTokenProvider(token), clock: clock)
    }

    @Test("S30 on the wire: Bearer, Accept and X-Request-ID always; Idempotency-Key on POST and PUT only")
    func headersOnTheWire() async throws {
        try await RequestLog.withServer { server, log in
            let user = server.newUser()
            let api = try client(server.root, token: user.token)
            let key = UUIDv7.generate(at: Date())
            let type = try await api.createEventTypeWithIdempotency(
                CreateEventTypeRequest(id: UUIDv7.generate(at: Date()), name: "Tea", color: "#0f0", icon: "leaf"),
                idempotencyKey: key)
            _ = try await api.updateEventType(
                id: type.id.uppercased(), UpdateEventTypeRequest(name: "Green tea", color: nil, icon: nil))
            _ = try await api.getEventTypes()
            try await api.deleteEventType(id: type.id)
            let requests = log.all
            // S30: Every POST and PUT carries an Idempotency-Key; GET and DELETE never do. A single mutation's key is…
            #expect(
                requests.map { "\($0.method) \($0.path)" } == [
                    "POST /api/v1/event-types", "PUT /api/v1/event-types/\(type.id)", "GET /api/v1/event-types",
                    "DELETE /api/v1/event-types/\(type.id)",
                ])
            for request in requests {
                #expect(request.headers["authorization"] == "Bearer \(user.token)")
                #expect(request.headers["accept"] == "application/json")
                #expect(request.headers["x-request-id"].map { !$0.isEmpty } == true)
                let writes = request.method == "POST" || request.method == "PUT"
                #expect((request.headers["idempotency-key"] != nil) == writes, "\(request.method)")
                #expect((request.headers["content-type"] == "application/json") == writes)
                #expect((request.headers["connection"] == "close") == writes, "a fresh connection for a body")
            }
            #expect(requests[0].headers["idempotency-key"] == key, "the mutation's own key")
            let fresh = requests[1].headers["idempotency-key"] ?? ""
            #expect(UUIDv7.isValid(fresh) && fresh == fresh.lowercased(), "S1 a fresh key is a lowercase UUIDv7")
            #expect(
                String(decoding: requests[0].body, as: UTF8.self)
                    == ##"{"color":"#0f0","icon":"leaf","id":"\##(type.id)","name":"Tea"}"##)
        }
    }

    @Test(
        "api-v1 §7 a re-sent create or batch says how long ago it was queued, by the client's clock, in milliseconds; a first send says nothing"
    )
    func queuedForOnTheWire() async throws {
        try await RequestLog.withServer { server, log in
            let user = server.newUser()
            // The client's clock is a day behind the server's: only the time since the queue goes on the wire.
            let clock = ManualClock(now: Date().addingTimeInterval(-86_400), mode: .suspending)
            let api = try client(server.root, token: user.token, clock: clock)
            let queuedAt = clock.now().addingTimeInterval(-90)
            let first = CreateEventTypeRequest(
                id: UUIDv7.generate(at: Date()), name: "Tea", color: "#0f0", icon: "leaf")
            _ = try await api.create(first, idempotencyKey: UUIDv7.generate(at: Date()), queuedAt: nil)
            let again = CreateEventTypeRequest(
                id: UUIDv7.generate(at: Date()), name: "Mate", color: "#0f0", icon: "leaf")
            let type = try await api.create(again, idempotencyKey: UUIDv7.generate(at: Date()), queuedAt: queuedAt)
            let event = CreateEventRequest(
                id: UUIDv7.generate(at: Date()), eventTypeId: type.id, timestamp: Date(), notes: nil, isAllDay: false,
                sourceType: .manual)
            _ = try await api.createEventsBatch(
                [event], idempotencyKey: UUIDv7.generate(at: Date()), queuedAt: queuedAt)
            let header = ResentCreate.headerName.lowercased()
            #expect(log.all.map { $0.headers[header] } == [nil, "90000", "90000"])
            let created = try #require(type.createdAt)
            #expect(abs(Date().timeIntervalSince(created) - 90) < 5, "dated by the server's clock: \(created)")
        }
    }

    @Test("an answer lost after the commit is a prompt transport error; the re-send under its key gets the answer")
    func lostAnswer() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.faults.probabilityDrop = 1
        try await LiveTrendyServer.with(configuration) { server in
            let api = APIClient(
                configuration: try APIClient.Configuration(serverRoot: server.root, requestTimeout: 15),
                tokenProvider: StaticTokenProvider(server.newUser().token))
            _ = try await api.getEventTypes()  // a kept-alive connection now exists
            let request = CreateEventTypeRequest(id: UUIDv7.generate(at: Date()), name: "Nap", color: "#00f", icon: "b")
            let error = await #expect(throws: NetworkError.self) {
                try await api.createEventTypeWithIdempotency(request, idempotencyKey: "lost-answer")
            }
            #expect(error == .transport("the connection closed without an answer"), "not a timeout")
            let replayed = try await api.createEventTypeWithIdempotency(request, idempotencyKey: "lost-answer")
            #expect(replayed.id == request.id)
            #expect(try await api.getEventTypes().count == 1)
        }
    }

    @Test("writes back to back never reuse a connection the server closed without saying so: none hangs")
    func writesBackToBack() async throws {
        // trendy-server closes the connection of a `Connection: close` request without echoing the header, so
        // libcurl keeps it for reuse; a write sent on it right after the close was re-sent by libcurl without its
        // body and hung until the timeout (about one run in two of BinaryTests before each write got a session).
        // Eight clients at once make the close and the next write race as they do under a full test run.
        try await LiveTrendyServer.with { server in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    let api = APIClient(
                        // A hang lasts until the timeout, whatever it is; 15 s leaves room for a loaded machine.
                        configuration: try APIClient.Configuration(serverRoot: server.root, requestTimeout: 15),
                        tokenProvider: StaticTokenProvider(server.newUser().token))
                    group.addTask {
                        for index in 0..<40 {
                            let request = CreateEventTypeRequest(
                                id: UUIDv7.generate(at: Date()), name: "Type \(index)", color: "#00f", icon: "b")
                            _ = try await api.createEventTypeWithIdempotency(request, idempotencyKey: "k\(index)")
                        }
                        return try await api.getEventTypes().count
                    }
                }
                for try await count in group { #expect(count == 40) }
            }
        }
    }

    @Test("a re-sent mutation carries the same key; calls without a key get a fresh one each time")
    func keysAreStableOrFresh() async throws {
        try await RequestLog.withServer { server, log in
            let api = try client(server.root, token: server.newUser().token)
            let request = CreateEventTypeRequest(
                id: UUIDv7.generate(at: Date()), name: "Nap", color: "#00f", icon: "bed")
            _ = try await api.createEventTypeWithIdempotency(request, idempotencyKey: "mutation-key")
            _ = try await api.createEventTypeWithIdempotency(request, idempotencyKey: "mutation-key")
            _ = try await api.createEventType(request)
            _ = try await api.createEventType(request)
            let keys = log.all.compactMap { $0.headers["idempotency-key"] }
            #expect(keys.count == 4 && keys[0] == "mutation-key" && keys[1] == "mutation-key")
            #expect(Set(keys[2...]).count == 2 && !keys[2...].contains("mutation-key"))
        }
    }

    @Test("query values are percent-encoded, and no URL ends with a slash")
    func queryEncoding() async throws {
        let answer: StubHTTPServer.Handler = { request in
            .init(status: 200, body: request.path.hasSuffix("/") ? "bad" : "[]")
        }
        try await StubHTTPServer.with(answer) { stub in
            let api = try client(stub.root)
            #expect(try await api.getEvents(limit: 10, offset: 0).isEmpty)
            #expect(try await api.getGeofences(activeOnly: true).isEmpty)
        }
        #expect(ServerRoot("HTTP://Example.COM:8080/")?.text == "http://example.com:8080")
    }

    @Test("401: one token refresh and one retry succeed; a second 401 is thrown")
    func unauthorizedRefreshesOnce() async throws {
        try await RequestLog.withServer { server, log in
            let tokens = RotatingTokens(good: server.newUser().token)
            let api = APIClient(configuration: try .init(serverRoot: server.root), tokenProvider: tokens)
            #expect(try await api.getEventTypes().isEmpty)
            #expect(log.all.count == 2 && tokens.refreshed.withLock { $0 } == 1)
            #expect(api.sentRequestCount == 2, "the client counts what went on the wire, retries included")

            let hopeless = RotatingTokens(good: "", refreshSucceeds: false)
            let denied = APIClient(configuration: try .init(serverRoot: server.root), tokenProvider: hopeless)
            await #expect(throws: NetworkError.self) { try await denied.getEventTypes() }
            do {
                _ = try await denied.getEventTypes()
            } catch let NetworkError.http(failure) {
                #expect(failure.status == 401 && failure.problemType == "unauthorized")
            }
            #expect(log.all.count == 6 && hopeless.refreshed.withLock { $0 } == 2, "two tries per call, no more")
        }
    }

    @Test("401 on a write: its small body is discarded, the answer read, the token refreshed and the write retried")
    func unauthorizedWriteRefreshes() async throws {
        try await LiveTrendyServer.with { server in
            let tokens = RotatingTokens(good: server.newUser().token)
            let api = APIClient(configuration: try .init(serverRoot: server.root), tokenProvider: tokens)
            for name in ["Tea", "Coffee", "Cocoa"] {
                let created = try await api.createEventType(
                    CreateEventTypeRequest(id: nil, name: name, color: "green", icon: "leaf"))
                #expect(created.name == name)
            }
            #expect(tokens.refreshed.withLock { $0 } == 1)
        }
    }

    @Test("S64 a 429 is retried at most 3 times, waiting max(2^(k-1) s, Retry-After) on the injected clock")
    func rateLimitRetries() async throws {
        try await withRateLimitingServer(retryAfter: 1) { api, clock, log in
            do {
                _ = try await api.getEventTypes()
                Issue.record("expected a 429")
            } catch let NetworkError.http(failure) {
                // S64: The network client retries a 429 at most 3 times, waiting max(2^(k-1) s, Retry-After), and…
                #expect(failure.status == 429 && failure.retryAfter == 1 && failure.problemType == "rate_limit")
            }
            #expect(clock.sleeps == [1, 2, 4])
            #expect(log.all.count == 4)
        }
    }

    @Test("a 429 whose wait would pass the 30 s cap is thrown at once")
    func rateLimitCap() async throws {
        try await withRateLimitingServer(retryAfter: 20) { api, clock, log in
            await #expect(throws: NetworkError.self) { try await api.getEventTypes() }
            #expect(clock.sleeps == [20], "20 s waited, the next 20 s would pass 30 s")
            #expect(log.all.count == 2)
        }
    }

    /// A server that answers every request 429 with `Retry-After: retryAfter`, a client of it on an advancing
    /// manual clock, and the log of the requests the server saw.
    func withRateLimitingServer(
        retryAfter: Int, _ body: (APIClient, ManualClock, RequestLog) async throws -> Void
    ) async throws {
        try await RequestLog.withServer {
            $0.faults.probability429 = 1
            $0.faults.retryAfterSeconds = retryAfter
        } _: { server, log in
            let clock = ManualClock(mode: .advancing)
            try await body(try client(server.root, token: server.newUser().token, clock: clock), clock, log)
        }
    }

    @Test("Retry-After as an HTTP-date is honoured, measured on the injected clock")
    func retryAfterHTTPDate() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000), mode: .advancing)
        let attempts = Mutex(0)
        let answer: StubHTTPServer.Handler = { _ in
            let attempt = attempts.withLock { value -> Int in
                value += 1
                return value
            }
            guard attempt == 1 else { return .init(status: 200, body: "[]") }
            // 1_800_000_005 is Fri, 15 Jan 2027 08:00:05 GMT.
            return .init(status: 429, headers: ["Retry-After": "Fri, 15 Jan 2027 08:00:05 GMT"], body: "")
        }
        try await StubHTTPServer.with(answer) { stub in
            let api = try client(stub.root, clock: clock)
            #expect(try await api.getEventTypes().isEmpty)
            #expect(clock.sleeps == [5])
        }
    }

    @Test(
        "error bodies are read by content, never by Content-Type",
        arguments: [
            (
                StubHTTPServer.Reply(
                    status: 409, headers: ["Content-Type": "text/plain"],
                    body:
                        #"{"type":"urn:trendy:error:conflict","title":"Resource Conflict","status":409,"detail":"duplicate name","existing_id":"0190F5C0-3F00-7A11-8B22-000000000001"}"#
                ),
                HTTPFailure(
                    status: 409, problemType: "conflict", message: "duplicate name",
                    existingId: "0190f5c0-3f00-7a11-8b22-000000000001")
            ),
            (
                StubHTTPServer.Reply(
                    status: 500, headers: ["Content-Type": "application/problem+json"],
                    body: #"{"error":"event not found"}"#),
                HTTPFailure(status: 500, message: "event not found")
            ),
            (
                StubHTTPServer.Reply(
                    status: 502, headers: ["Content-Type": "application/json"], body: "<html>Bad Gateway</html>"),
                HTTPFailure(status: 502)
            ),
            (StubHTTPServer.Reply(status: 404, body: ""), HTTPFailure(status: 404)),
            (
                StubHTTPServer.Reply(
                    status: 503, headers: ["Retry-After": "7"],
                    body: #"{"type":"urn:trendy:error:unavailable","retry_after":3}"#),
                HTTPFailure(status: 503, problemType: "unavailable", retryAfter: 7)
            ),
        ] as [(StubHTTPServer.Reply, HTTPFailure)])
    func errorBodies(reply: StubHTTPServer.Reply, expected: HTTPFailure) async throws {
        let answer: StubHTTPServer.Handler = { _ in reply }
        try await StubHTTPServer.with(answer) { stub in
            do {
                try await client(stub.root).deleteEvent(id: UUIDv7.generate(at: Date()))
                Issue.record("expected a failure")
            } catch let NetworkError.http(failure) {
                var withoutRequestId = failure
                withoutRequestId.requestId = nil
                #expect(withoutRequestId == expected)
                #expect(failure.requestId?.isEmpty == false)
            }
        }
    }

    @Test("a 2xx body that is not the expected JSON is a decoding error (a captive portal)")
    func captivePortal() async throws {
        let answer: StubHTTPServer.Handler = { _ in
            .init(status: 200, headers: ["Content-Type": "application/json"], body: "<html>Sign in to Wi-Fi</html>")
        }
        try await StubHTTPServer.with(answer) { stub in
            await #expect(
                throws: NetworkError.decoding(
                    status: 200, message: "expected Array<APIEventType>: <html>Sign in to Wi-Fi</html>")
            ) {
                try await client(stub.root).getEventTypes()
            }
        }
    }

    @Test("a redirect is not followed: the token never reaches the other address, and the error names it")
    func redirectsAreRefused() async throws {
        let reached = Mutex<[String]>([])
        let recording: StubHTTPServer.Handler = { request in
            let authorization = request.headers["Authorization"] ?? ""
            reached.withLock { $0.append("\(request.method) \(request.path) \(authorization)") }
            return .init(status: 200, headers: ["Content-Type": "application/json"], body: "[]")
        }
        try await StubHTTPServer.with(recording) { elsewhere in
            let target = elsewhere.root.url.absoluteString + "/api/v1/event-types"
            let redirecting: StubHTTPServer.Handler = { request in
                .init(status: request.method == "GET" ? 302 : 307, headers: ["Location": target])
            }
            try await StubHTTPServer.with(redirecting) { origin in
                let client = try client(origin.root, token: "secret-token")
                for call in ["GET", "POST"] {
                    do {
                        if call == "GET" {
                            _ = try await client.getEventTypes()
                        } else {
                            _ = try await client.createEventType(
                                CreateEventTypeRequest(id: nil, name: "Tea", color: "green", icon: "leaf"))
                        }
                        Issue.record("\(call): a redirect was followed")
                    } catch let error as NetworkError {
                        guard case .transport(let message) = error else {
                            Issue.record("\(call): expected transport, got \(error)")
                            continue
                        }
                        #expect(message.contains("redirect") && message.contains(target), "\(message)")
                    }
                }
            }
        }
        #expect(reached.withLock { $0 } == [], "nothing, and no token, reached the address redirected to")
    }

    @Test("getEventTypes and getGeofences follow X-Next-After to the last page")
    func pagedLists() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.maxPageBytes = 1500
        try await LiveTrendyServer.with(configuration) { server in
            let api = APIClient(
                configuration: try .init(serverRoot: server.root),
                tokenProvider: StaticTokenProvider(server.newUser().token))
            var names: [String] = []
            for index in 0..<12 {
                let name = "Type \(index) " + String(repeating: "n", count: 300)
                _ = try await api.createEventType(CreateEventTypeRequest(id: nil, name: name, color: "c", icon: "i"))
                names.append(name)
                _ = try await api.createGeofence(
                    CreateGeofenceRequest(id: nil, name: name, latitude: 1, longitude: 2, radius: 100))
            }
            let before = api.sentRequestCount
            #expect(try await api.getEventTypes().map(\.name) == names)
            #expect(api.sentRequestCount - before > 1, "the list came in several pages")
            #expect(try await api.getGeofences(activeOnly: false).map(\.name) == names.reversed())
        }
    }

    @Test(
        "a refused connection is a transport error that says so at once, not at the request's deadline",
        .timeLimit(.minutes(1)))
    func connectionRefused() async throws {
        let root = try #require(ServerRoot("http://127.0.0.1:9"))
        // Deadlines far beyond the time limit: only a prompt refusal passes.
        let api = APIClient(
            configuration: try APIClient.Configuration(serverRoot: root, requestTimeout: 300, resourceTimeout: 300),
            tokenProvider: StaticTokenProvider("t"))
        do {
            _ = try await api.getEventTypes()
            Issue.record("expected a transport error")
        } catch let error as NetworkError {
            #expect(error == .transport("connection refused"), "what trendyctl prints")
        }
    }

    @Test("a cancelled call throws cancelled")
    func cancellation() async throws {
        let gate = CallGate()
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.testHooks.beforeHandler = { _, _ in _ = await gate.pass() }
        try await LiveTrendyServer.with(configuration) { server in
            let api = try client(server.root, token: server.newUser().token)
            let call = Task {
                try await api.createEventType(CreateEventTypeRequest(id: nil, name: "x", color: "#000", icon: "x"))
            }
            await gate.waitForArrivals(1)
            call.cancel()
            await #expect(throws: NetworkError.cancelled) { try await call.value }
            gate.release()
        }
    }

    @Test("the X-Request-ID sent is kept in the failure")
    func requestIdInFailure() async throws {
        try await RequestLog.withServer { server, log in
            let api = try client(server.root, token: server.newUser().token)
            do {
                try await api.deleteEvent(id: UUIDv7.generate(at: Date()))
                Issue.record("expected 404")
            } catch let NetworkError.http(failure) {
                #expect(failure.requestId != nil && failure.requestId == log.all.last?.headers["x-request-id"])
            }
        }
    }

    @Test("S59 a batch result carries the HTTP status it came with: 201 and 207 are 2xx", arguments: [201, 207])
    func batchStatus(status: Int) async throws {
        let body =
            #"{"created":[],"errors":[{"index":0,"message":"invalid event type: x"}],"total":1,"success":0,"failed":1}"#
        let answer: StubHTTPServer.Handler = { _ in .init(status: status, body: body) }
        try await StubHTTPServer.with(answer) { stub in
            let result = try await client(stub.root).createEventsBatch(
                [CreateEventRequest(id: UUIDv7.generate(at: Date()), eventTypeId: "x", timestamp: Date())],
                idempotencyKey: "k")
            #expect(result.httpStatus == status && result.isSuccessStatus, "S59 the status comes from the response")
        }
    }

    @Test("a batch answered 400 with a batch body is a result, not an error")
    func batchBodyOn400() async throws {
        let body =
            #"{"created":[],"errors":[{"index":0,"message":"invalid event type: x"}],"total":1,"success":0,"failed":1}"#
        let answer: StubHTTPServer.Handler = { _ in .init(status: 400, body: body) }
        try await StubHTTPServer.with(answer) { stub in
            let result = try await client(stub.root).createEventsBatch(
                [CreateEventRequest(id: UUIDv7.generate(at: Date()), eventTypeId: "x", timestamp: Date())],
                idempotencyKey: "k")
            #expect(result.failed == 1 && result.errors.first?.message == "invalid event type: x")
            #expect(result.httpStatus == 400 && !result.isSuccessStatus, "S59 the status comes from the response")
        }
    }

    @Test("getAllEvents pages until a short page, keeps the first copy of an id that shifted pages, reports progress")
    func allEventsPaging() async throws {
        let pages: [Int: [String]] = [0: ["a", "b"], 2: ["b", "c"], 4: ["d"]]
        let offsets = Mutex<[Int]>([])
        let answer: StubHTTPServer.Handler = { request in
            let offset = Int(request.query["offset"] ?? "") ?? -1
            offsets.withLock { $0.append(offset) }
            let items = (pages[offset] ?? []).map { id in
                #"{"id":"\#(id)","user_id":"u","event_type_id":"t","timestamp":"2026-01-01T00:00:00Z","is_all_day":false,"source_type":"manual"}"#
            }
            return .init(status: 200, body: "[\(items.joined(separator: ","))]")
        }
        try await StubHTTPServer.with(answer) { stub in
            let progress = Mutex<[Int]>([])
            let events = try await client(stub.root).getAllEvents(batchSize: 2) { received in
                progress.withLock { $0.append(received) }
            }
            #expect(events.map(\.id) == ["a", "b", "c", "d"])
            #expect(progress.withLock { $0 } == [2, 3, 4], "after each page: the distinct events so far")
            // The page after the short one is prefetched and cancelled; whether it reached the server is a race.
            let requested = offsets.withLock { $0 }
            #expect(requested == [0, 2, 4] || requested == [0, 2, 4, 6], "\(requested)")
        }
    }

    @Test("entityExists: 200 is true, 404 is false, anything else throws")
    func entityExists() async throws {
        let answer: StubHTTPServer.Handler = { request in
            .init(status: request.path.hasSuffix("1") ? 200 : request.path.hasSuffix("2") ? 404 : 500, body: "{}")
        }
        try await StubHTTPServer.with(answer) { stub in
            let api = try client(stub.root)
            #expect(try await api.entityExists(.event, id: "id-1"))
            #expect(try await !api.entityExists(.geofence, id: "id-2"))
            await #expect(throws: NetworkError.self) { try await api.entityExists(.eventType, id: "id-3") }
        }
    }

    @Test("configuration values are validated")
    func configurationValidation() throws {
        let root = try #require(ServerRoot("http://127.0.0.1:1"))
        #expect(throws: APIClient.ConfigurationError.self) {
            try APIClient.Configuration(serverRoot: root, requestTimeout: 0)
        }
        #expect(throws: APIClient.ConfigurationError.self) {
            try APIClient.Configuration(serverRoot: root, requestTimeout: 20, resourceTimeout: 10)
        }
        #expect(throws: APIClient.ConfigurationError.self) {
            try APIClient.Configuration(serverRoot: root, maxRateLimitRetries: 6)
        }
        // A client name the `Trendy-Device` header cannot carry (api-v1 §16) is refused here, not by every request.
        for client in ["", "my app/1", "a;b", String(repeating: "x", count: 65)] {
            #expect(throws: APIClient.ConfigurationError.self) {
                try APIClient.Configuration(serverRoot: root, device: DeviceHeader(id: UUID(), client: client))
            }
        }
        _ = try APIClient.Configuration(serverRoot: root, device: DeviceHeader(id: UUID(), client: "trendyctl/1.0.0"))
    }
}
