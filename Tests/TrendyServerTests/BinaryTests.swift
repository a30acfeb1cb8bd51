import Foundation
import Models
import Networking
import Protocols
import TestSupport
import TestSupportContracts
import Testing
import TrendyServerTesting

/// The `trendy-server` executable as users run it (spec/trendyctl.md §2).
@Suite("trendy-server binary")
struct BinaryTests {
    @Test("--port 0 --in-memory --token: prints its line, serves, and exits 0 on SIGTERM")
    func startsServesStops() async throws {
        let user = "0190f5c0-3f00-7a11-8b22-000000000001"
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--token", "t1:\(user)"])
        #expect(process.url.hasPrefix("http://127.0.0.1:") && !process.url.hasSuffix(":0"))
        let health = try await RawHTTP.send("GET", process.url + "/health")
        #expect(health.status == 200)
        let created = try await RawHTTP.send(
            "POST", process.url + "/api/v1/event-types", token: "t1",
            body: Data(#"{"name":"Tea","color":"green","icon":"leaf"}"#.utf8))
        #expect(created.status == 201 && created.json?["user_id"] as? String == user)
        #expect(await process.terminate() == 0)
        #expect(await process.remainingOutput().isEmpty, "stdout carries only the listening line")
    }

    @Test("the binary serves the NetworkClient contract to APIClient", arguments: NetworkClientContract.checks)
    func servesTheContract(_ check: NetworkClientContract.Check) async throws {
        let (alice, bob) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        let process = try await ServerProcess.start([
            "--port", "0", "--in-memory", "--token", "t1:\(alice)", "--token", "t2:\(bob)",
        ])
        defer { process.stop() }
        let root = try #require(ServerRoot(process.url))
        try await check.run {
            NetworkClientContract.Subject(
                client: APIClient(configuration: try .init(serverRoot: root), tokenProvider: StaticTokenProvider("t1")),
                otherUser: APIClient(
                    configuration: try .init(serverRoot: root), tokenProvider: StaticTokenProvider("t2")))
        }
        #expect(await process.terminate() == 0)
    }

    @Test("without a token source it refuses to start, says why on stderr, and exits non-zero")
    func refusesWithoutTokens() async throws {
        let result = try await ChildProcess.run("trendy-server", ["--port", "0", "--in-memory"], environment: [:])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--token") && result.stderr.contains("--dev"))
    }

    @Test("--dev prints the development token on stderr and accepts it")
    func devToken() async throws {
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--dev"])
        let list = try await RawHTTP.send("GET", process.url + "/api/v1/event-types", token: "dev-token")
        #expect(list.status == 200)
        #expect(await process.terminate() == 0)
        #expect(await process.errors().contains("dev-token"))
    }

    @Test("--log-format json: one JSON object a line, the request line with its request id; bad formats refused")
    func jsonLogs() async throws {
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--dev", "--log-format", "json"])
        let answer = try await RawHTTP.send(
            "GET", process.url + "/api/v1/event-types", token: "dev-token", headers: ["X-Request-ID": "req-77"])
        #expect(answer.status == 200)
        #expect(await process.terminate() == 0)
        let records = await process.errors().split(separator: "\n").compactMap { line -> JSONValue? in
            line.hasPrefix("{") ? try? JSONText.parse(String(line)) : nil
        }
        let request = records.first { $0["request-id"]?.stringValue == "req-77" }
        #expect(request?["message"]?.stringValue == "GET /api/v1/event-types 200", "\(records)")
        #expect(request?["level"]?.stringValue == "info" && request?["ms"] != nil)
        #expect(request?["time"]?.stringValue.flatMap(RFC3339.milliseconds(from:)) != nil)
        let refused = try await ChildProcess.run(
            "trendy-server", ["--in-memory", "--log-format", "xml"], environment: [:])
        #expect(refused.status == 64 && refused.stderr.contains("--log-format must be text or json"))
    }

    @Test("a file database keeps data across restarts")
    func fileDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-server-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = [
            "--port", "0", "--db", directory.appendingPathComponent("server.sqlite").path, "--token",
            "t:0190f5c0-3f00-7a11-8b22-000000000001",
        ]
        let first = try await ServerProcess.start(arguments)
        let created = try await RawHTTP.send(
            "POST", first.url + "/api/v1/event-types", token: "t",
            body: Data(#"{"name":"Kept","color":"green","icon":"x"}"#.utf8))
        #expect(created.status == 201)
        #expect(await first.terminate() == 0)
        let second = try await ServerProcess.start(arguments)
        let list = try await RawHTTP.send("GET", second.url + "/api/v1/event-types", token: "t")
        #expect(list.jsonArray?.first?["name"] as? String == "Kept")
        #expect(await second.terminate() == 0)
    }

    @Test("bad flags are usage errors")
    func badFlags() async throws {
        for arguments in [
            ["--quirks", "modern", "--dev"], ["--fault-500", "2", "--dev"], ["--db", "x", "--in-memory", "--dev"],
            ["--idle-timeout", "0", "--dev"],
        ] {
            let result = try await ChildProcess.run("trendy-server", arguments, environment: [:])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
    }

    @Test("--idle-timeout: blank lines or half a request head are closed without an answer; requests are answered")
    func idleConnectionsAreClosed() async throws {
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--dev", "--idle-timeout", "1"])
        defer { process.stop() }
        let port = try #require(process.url.split(separator: ":").last.flatMap { Int($0) })
        // Found by the request fuzzer: a head mutated into blank lines held its connection open for ever. The
        // socket's own limit (20 s) is far above the server's, so only the server closing ends these reads.
        for incomplete in ["\r\n\r\n", "GET /health HTT", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"] {
            let answer = try await onOwnThread {
                try RawSocket.exchange(port: port, Array(incomplete.utf8), timeoutSeconds: 20)
            }
            #expect(answer.isEmpty, "closed without a word: \(incomplete.debugDescription)")
        }
        let health = try await onOwnThread {
            try RawSocket.exchange(
                port: port, Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        }
        #expect(RawSocket.parse(health)?.status == 200)
    }
}
