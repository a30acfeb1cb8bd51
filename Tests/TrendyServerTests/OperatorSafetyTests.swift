import Foundation
import GRDB
import Models
import TestSupport
import Testing
import TrendyServerTesting

@testable import TrendyServer

/// What an operator can get wrong, refused at start with a message that says what to do (docs/server.md): short JWT
/// secrets, a token given to two users, out-of-range flags, a database from a newer server; and
/// SIGHUP reloads the tokens file instead of ending the server.
@Suite("Operator safety")
struct OperatorSafetyTests {
    static let alice = "0190f5c0-3f00-7a11-8b22-000000000001"
    static let bob = "0190f5c0-3f00-7a11-8b22-000000000002"
    /// A token no message may print any part of.
    static let secretToken = "s3cr3t-t0ken-never-printed"

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("operator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func write(_ text: String, _ file: URL) throws { try Data(text.utf8).write(to: file) }

    @Test("--version prints the release")
    func version() async throws {
        let result = try await ChildProcess.run("trendy-server", ["--version"], environment: [:])
        #expect(result.status == 0)
        #expect(result.stdout == "trendy-server \(TrendyRelease.version)\n")
    }

    @Test("a JWT secret under 32 bytes is refused; the file's trailing CR/LF is not part of the secret")
    func jwtSecrets() async throws {
        let folder = try Self.scratch()
        let short = folder.appendingPathComponent("short")
        try Self.write(String(repeating: "k", count: 31) + "\n", short)
        let refused = try await ChildProcess.run(
            "trendy-server", ["--port", "0", "--in-memory", "--jwt-secret-file", short.path], environment: [:])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("31 bytes") && refused.stderr.contains("at least 32"), "\(refused.stderr)")

        let secret = String(repeating: "k", count: 32)
        let crlf = folder.appendingPathComponent("crlf")
        try Self.write(secret + "\r\n", crlf)
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--jwt-secret-file", crlf.path])
        defer { process.stop() }
        let token = BearerTokens.hs256(
            user: Self.alice, secret: Array(secret.utf8), expiresAt: Date().addingTimeInterval(600))
        let answer = try await RawHTTP.send("GET", process.url + "/api/v1/event-types", token: token)
        #expect(answer.status == 200, "signed with the secret without its line ending: \(answer.text)")
        #expect(await process.terminate() == 0)
    }

    @Test("a token given to two users, or a malformed pair, is refused at start without printing the token")
    func tokenMappings() async throws {
        let folder = try Self.scratch()
        let twice = folder.appendingPathComponent("tokens")
        try Self.write("# team\n\(Self.secretToken):\(Self.alice)\n\n\(Self.secretToken):\(Self.bob)\n", twice)
        let malformed = folder.appendingPathComponent("malformed")
        try Self.write("\(Self.secretToken):not-a-user\n", malformed)
        let runs: [(arguments: [String], says: String)] = [
            (["--tokens-file", twice.path], "line 4 of \(twice.path)"),
            (["--tokens-file", malformed.path], "line 1 of \(malformed.path)"),
            (
                ["--token", "\(Self.secretToken):\(Self.alice)", "--token", "\(Self.secretToken):\(Self.bob)"],
                "--token"
            ),
            (["--token", "\(Self.secretToken)-\(Self.alice)"], "--token number 1"),
        ]
        for run in runs {
            let result = try await ChildProcess.run(
                "trendy-server", ["--port", "0", "--in-memory"] + run.arguments, environment: [:])
            #expect(result.status == 64, "\(run.arguments): \(result.stderr)")
            #expect(result.stderr.contains(run.says), "\(result.stderr)")
            // Not even a prefix: the first four characters of the token appear nowhere.
            #expect(!result.stderr.contains(String(Self.secretToken.prefix(4))), "\(result.stderr)")
        }
        // The same token twice for the same user is harmless.
        var configuration = ServerConfiguration()
        try configuration.addTokens(fromFileContents: "a:\(Self.alice)\na:\(Self.alice)\n")
        #expect(configuration.staticTokens == ["a": Self.alice])
    }

    @Test("every operator flag is range-checked at start: huge values are usage errors, never a trap")
    func flagRanges() async throws {
        let huge = String(Int64.max)
        for flag in [
            "--idle-timeout", "--changelog-retention-days", "--rate-limit", "--fault-retry-after", "--fault-delay-ms",
            "--max-streams", "--max-streams-per-user", "--stream-keepalive", "--port", "--max-devices-per-user",
        ] {
            let result = try await ChildProcess.run(
                "trendy-server", ["--in-memory", "--dev", flag, huge], environment: [:])
            #expect(result.status == 64, "\(flag) \(huge): status \(result.status), \(result.stderr)")
            #expect(result.stderr.contains(flag), "the message names the flag: \(result.stderr)")
        }
        let overflow = try await ChildProcess.run(
            "trendy-server", ["--in-memory", "--dev", "--idle-timeout", "99999999999999999999999"], environment: [:])
        #expect(overflow.status == 64, "\(overflow.stderr)")
        // A negative value is a value out of range, named as such, not a "missing value" (getopt's rule).
        let negative = try await ChildProcess.run(
            "trendy-server", ["--in-memory", "--dev", "--port", "-1"], environment: [:])
        #expect(negative.status == 64 && negative.stderr.contains("--port must be 0–65535"), "\(negative.stderr)")
        let strategies = try await OptionParsing.strategies(of: "trendy-server")
        #expect(strategies.count > 25 && strategies["trendy-server serve --port"] != nil, "\(strategies.keys.sorted())")
        let others = strategies.filter { $0.value != "unconditional" }
        #expect(others.isEmpty, "an option that would take -1 for a flag: \(others.sorted { $0.key < $1.key })")
    }

    @Test("SIGHUP reloads the tokens file: new tokens work, removed ones stop, a bad file keeps the tokens in use")
    func hangUpReloadsTokens() async throws {
        let folder = try Self.scratch()
        let file = folder.appendingPathComponent("tokens")
        try Self.write("first:\(Self.alice)\n", file)
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--tokens-file", file.path])
        defer { process.stop() }
        func status(_ token: String) async throws -> Int {
            try await RawHTTP.send("GET", process.url + "/api/v1/event-types", token: token).status
        }
        #expect(try await status("first") == 200)
        #expect(try await status("second") == 401)

        try Self.write("second:\(Self.bob)\n", file)
        process.running.send(SIGHUP)
        try await waitUntil("the reloaded token is accepted") { (try? await status("second")) == 200 }
        #expect(try await status("first") == 401, "a token removed from the file stops working")

        try Self.write("second:not-a-uuid\n", file)
        process.running.send(SIGHUP)
        try await waitUntil("the refused reload is logged") { process.running.stderrSoFar.contains("not reloaded") }
        #expect(try await status("second") == 200, "a file that does not parse changes nothing")
        #expect(process.running.exitStatus == nil, "SIGHUP never ends the server")
        #expect(await process.terminate() == 0)
    }

    @Test("api-v1 §13 a reload that removes a stream's token ends that stream with event: reauth, then a close")
    func hangUpEndsRevokedStreams() async throws {
        let folder = try Self.scratch()
        let file = folder.appendingPathComponent("tokens")
        try Self.write("phone:\(Self.alice)\nlaptop:\(Self.alice)\nother:\(Self.bob)\n", file)
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--tokens-file", file.path])
        defer { process.stop() }
        let port = try #require(URL(string: process.url)?.port)
        func open(_ token: String) async throws -> RawStream {
            let stream = try RawStream(
                port: port,
                "GET /api/v1/changes/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n",
                timeoutSeconds: 5)
            #expect(try await stream.read(until: ": open"), "\(token): \(stream.text)")
            return stream
        }
        let (phone, laptop, other) = (try await open("phone"), try await open("laptop"), try await open("other"))

        // The lost phone's token is removed: its stream ends at once; the laptop's, with a token kept, goes on.
        try Self.write("laptop:\(Self.alice)\nother:\(Self.bob)\n", file)
        process.running.send(SIGHUP)
        #expect(try await phone.read(until: "event: reauth"), "\(phone.text)")
        try await phone.readToEnd()  // the server closes it: a read past the time limit would throw
        let created = try await RawHTTP.send(
            "POST", process.url + "/api/v1/event-types", token: "laptop",
            body: Data(#"{"name":"Tea","color":"green","icon":"leaf"}"#.utf8))
        #expect(created.status == 201)
        #expect(try await laptop.read(until: "event: change"), "a stream whose token stays goes on: \(laptop.text)")
        #expect(!laptop.text.contains("reauth") && !other.text.contains("reauth"))

        // A user left with no token at all: every stream of theirs ends; another user's goes on.
        try Self.write("other:\(Self.bob)\n", file)
        process.running.send(SIGHUP)
        #expect(try await laptop.read(until: "event: reauth"), "\(laptop.text)")
        try await laptop.readToEnd()
        #expect(try await RawHTTP.send("GET", process.url + "/api/v1/event-types", token: "laptop").status == 401)
        try await waitUntil("the revoked streams are counted out") {
            (try? await Self.openStreams(process.url)) == 1
        }
        #expect(!other.text.contains("reauth"))
        #expect(await process.terminate() == 0)
    }

    @Test(
        "api-v1 §13 a hundred streams whose clients went away (FIN or RST, before or after the answer) free their slots"
    )
    func droppedStreamsFreeTheirSlots() async throws {
        let process = try await ServerProcess.start(["--port", "0", "--in-memory", "--dev"])
        defer { process.stop() }
        let port = try #require(URL(string: process.url)?.port)
        let request = "GET /api/v1/changes/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-token\r\n\r\n"
        for index in 0..<100 {
            let stream = try RawStream(port: port, request, timeoutSeconds: 10)
            // Half go before the server answered (it may not even have read the request), half after.
            if index % 4 >= 2 { #expect(try await stream.read(until: ": open"), "stream \(index): \(stream.text)") }
            stream.drop(reset: index % 2 == 1)
        }
        try await waitUntil("the gauge of open streams is back to 0") {
            (try? await Self.openStreams(process.url)) == 0
        }
        // The user's per-user cap (16) is not held by any of them.
        let next = try RawStream(port: port, request, timeoutSeconds: 10)
        #expect(try await next.read(until: ": open"), "\(next.text)")
        #expect(next.text.hasPrefix("HTTP/1.1 200"), "\(next.text)")
        #expect(try await Self.openStreams(process.url) == 1)
        next.drop(reset: false)
        try await waitUntil("the last stream is counted out") { (try? await Self.openStreams(process.url)) == 0 }
        #expect(await process.terminate() == 0)
    }

    /// `trendy_open_streams` of `GET /metrics`.
    static func openStreams(_ url: String) async throws -> Int? {
        let metrics = try await RawHTTP.send("GET", url + "/metrics")
        let line = metrics.text.split(separator: "\n").first { $0.hasPrefix("trendy_open_streams ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) }
    }

    @Test("a database written by a newer server is refused with what to do, not opened (SQLite, PostgreSQL)")
    func newerDatabase() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        if case .inMemory = configuration.storage {
            configuration.storage = .file(path: try Self.scratch().appendingPathComponent("server.sqlite").path)
        }
        let first = try await TrendyServer(configuration: configuration)
        let postgres = if case .postgres = configuration.storage { true } else { false }
        try await first.storage.write(user: nil) { db in
            if postgres {
                try db.execute(
                    sql: "INSERT INTO trendy_migrations (name, applied_at) VALUES ('v99-from-the-future', 0)")
            } else {
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            }
        }
        try await first.storage.close()
        await #expect {
            _ = try await TrendyServer(configuration: configuration)
        } throws: { error in
            let refused = error as? DatabaseTooNew
            return refused?.unknownMigrations == ["v99-from-the-future"]
                && refused?.description.contains("newer trendy-server") == true
        }
    }

    @Test("api-v1 §6.6 a database from before tombstones keeps the deletes its change log holds (SQLite, PostgreSQL)")
    func tombstonesFromTheChangeLog() async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        if case .inMemory = configuration.storage {
            configuration.storage = .file(path: try Self.scratch().appendingPathComponent("server.sqlite").path)
        }
        let user = UUID().uuidString.lowercased()
        configuration.staticTokens["tombstone-token"] = user
        let postgres = if case .postgres = configuration.storage { true } else { false }
        let (gone, kept) = (UUIDv7.generate(at: Date()), UUIDv7.generate(at: Date()))
        try await LiveTrendyServer.with(configuration) { server in
            for id in [gone, kept] {
                let created = try await RawHTTP.send(
                    "POST", server.root.text + "/api/v1/event-types", token: "tombstone-token",
                    body: Data(#"{"id":"\#(id)","name":"T\#(id.suffix(4))","color":"red","icon":"dot"}"#.utf8))
                #expect(created.status == 201, "\(created.text)")
            }
            let deleted = try await RawHTTP.send(
                "DELETE", server.root.text + "/api/v1/event-types/\(gone)", token: "tombstone-token")
            #expect(deleted.status == 204)
        }
        // As a server before tombstones left it: no table, the migration not applied.
        let older = try await TrendyServer(configuration: configuration)
        try await older.storage.write(user: nil) { db in
            try db.execute(sql: "DROP TABLE tombstones")
            if postgres {
                try db.execute(sql: "DELETE FROM trendy_migrations WHERE name = 'v4-tombstones'")
            } else {
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4-tombstones'")
            }
        }
        try await older.storage.close()
        try await LiveTrendyServer.with(configuration) { server in
            let answer = try await RawHTTP.send(
                "GET", server.root.text + "/api/v1/event-types/\(gone)", token: "tombstone-token")
            #expect(answer.status == 404 && answer.json?["type"] as? String == "urn:trendy:error:deleted", "\(answer)")
            let alive = try await RawHTTP.send(
                "GET", server.root.text + "/api/v1/event-types/\(kept)", token: "tombstone-token")
            #expect(alive.status == 200)
        }
    }

    @Test(
        "the binary refuses a --db that cannot be its database: exit 69, the path and the reason on stderr",
        arguments: ["folder", "under a file", "not SQLite"])
    func unusableDatabasePath(_ case: String) async throws {
        let scratch = try Self.scratch()
        let plain = scratch.appendingPathComponent("plain.txt")
        try Data(String(repeating: "not a database; ", count: 100).utf8).write(to: plain)
        let (path, reason) =
            switch `case` {
            case "folder": (scratch.path, "it is a folder")
            case "under a file": (plain.appendingPathComponent("server.sqlite").path, "is a file, not a folder")
            default: (plain.path, "file is not a database")
            }
        let result = try await ChildProcess.run(
            "trendy-server", ["--port", "0", "--db", path, "--dev"], environment: [:])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains("cannot open the database \(path) (") && result.stderr.contains(reason)
                && result.stderr.contains("pass another file with --db"), "\(result.stderr)")
        #expect(try Data(contentsOf: plain).count == 1600, "the plain file is left as it was")
    }

    @Test("the binary refuses a newer SQLite database: exit 69 and the reason on stderr")
    func newerDatabaseBinary() async throws {
        let path = try Self.scratch().appendingPathComponent("server.sqlite").path
        let process = try await ServerProcess.start(["--port", "0", "--db", path, "--dev"])
        #expect(await process.terminate() == 0)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try queue.close()
        let result = try await ChildProcess.run(
            "trendy-server", ["--port", "0", "--db", path, "--dev"], environment: [:])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("newer trendy-server") && result.stderr.contains("v99-from-the-future"))
    }
}
