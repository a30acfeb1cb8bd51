import Foundation
import Models
import Synchronization
import Testing
import TrendyServerTesting

/// trendyctl keeps the user's credentials and data to the user (docs/security.md): no redirect is followed, a token
/// file others can read is refused, folders are 0700 and files 0600 whatever the umask, and a server URL with
/// credentials in it is refused without repeating them.
@Suite("trendyctl credential safety")
struct CredentialSafetyTests {
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    @Test("a redirect is refused with the address it named; the token never reaches that address; nothing is lost")
    func redirectRefused() async throws {
        let reached = Mutex(0)
        let counting: StubHTTPServer.Handler = { _ in
            reached.withLock { $0 += 1 }
            return .init(status: 200, headers: ["Content-Type": "application/json"], body: "[]")
        }
        try await StubHTTPServer.with(counting) { elsewhere in
            let target = elsewhere.root.text + "/api/v1/changes/latest-cursor"
            let redirecting: StubHTTPServer.Handler = { _ in .init(status: 301, headers: ["Location": target]) }
            try await StubHTTPServer.with(redirecting) { origin in
                let cli = try CLI(server: origin.root.text, token: "secret-token")
                _ = try await cli.json("types", "add", "Tea")
                let sync = try await cli.run("sync")
                #expect(sync.status == 75, "\(sync)")
                #expect(sync.stderr.contains("redirect") && sync.stderr.contains(target), "\(sync)")
                #expect(try await cli.json("queue", "list").arrayValue?.count == 1, "the change still waits")
            }
        }
        #expect(reached.withLock { $0 } == 0)
    }

    @Test("a token file others can read is refused, with the chmod to run; after it, the token is used")
    func tokenFileReadableByOthers() async throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let path = try #require(cli.environment["TRENDY_TOKEN_FILE"])
        try Data("secret-token\n".utf8).write(to: URL(fileURLWithPath: path))
        for mode in [0o644, 0o640, 0o604] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let refused = try await cli.run("sync")
            #expect(refused.status == 4, "\(refused)")
            #expect(refused.stderr.contains("chmod 600 \(path)"), "\(refused)")
            #expect(!refused.stderr.contains("secret-token"))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let used = try await cli.run("sync")
        #expect(used.status == 75 && used.stderr.contains("unreachable"), "past the token, to the network: \(used)")
    }

    @Test("under umask 000 the folders trendyctl creates are 0700 and its files 0600")
    func privateModes() async throws {
        let cli = try CLI()
        let base = cli.home.appendingPathComponent("nested").path
        let paths = [
            "TRENDY_DB": base + "/data/trendy/trendy.sqlite", "TRENDY_CONFIG": base + "/config/trendy/config.toml",
            "TRENDY_TOKEN_FILE": base + "/secrets/trendy/token",
        ]
        let trendyctl = try ServerProcess.executable("trendyctl").path
        func run(_ arguments: [String], stdin: String? = nil) async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                executable: URL(fileURLWithPath: "/bin/sh"),
                ["-c", "umask 000; exec \"$0\" \"$@\"", trendyctl] + arguments,
                environment: cli.environment.merging(paths) { $1 }, stdin: stdin.map { Data($0.utf8) })
        }
        #expect(try await run(["config", "set", "sync.interval", "30"]).status == 0)
        #expect(try await run(["login", "--with-token"], stdin: "secret-token\n").status == 0)
        #expect(try await run(["types", "add", "Tea"]).status == 0)
        #expect(try await run(["export", "--output", base + "/out/export.json"]).status == 0)
        for folder in ["/data", "/data/trendy", "/config/trendy", "/secrets", "/secrets/trendy", "/out"] {
            #expect(Self.mode(base + folder) == 0o700, "\(folder): \(String(Self.mode(base + folder) ?? 0, radix: 8))")
        }
        // And whatever else sits beside the database (the WAL and shared-memory files while they exist).
        let beside = try FileManager.default.contentsOfDirectory(atPath: base + "/data/trendy").map {
            base + "/data/trendy/" + $0
        }
        let files = Set(paths.values.sorted() + beside + [base + "/out/export.json"]).sorted()
        for file in files {
            #expect(Self.mode(file) == 0o600, "\(file): \(String(Self.mode(file) ?? 0, radix: 8))")
        }
    }

    @Test("a server URL with credentials is refused from every source, without repeating them")
    func credentialsInServerURL() async throws {
        let cli = try CLI()
        let url = "http://alice:hunter2@127.0.0.1:8080"
        let runs = [
            try await cli.run("sync", "--server", url),
            try await cli.run(["sync"], extra: ["TRENDY_SERVER": url]),
            try await cli.run("config", "set", "server", url),
            // No stdin: trendyctl refuses before reading it, and a write to a pipe nobody reads can fail.
            try await cli.run("login", "--server", url, "--with-token"),
        ]
        for run in runs {
            #expect(run.status == 64, "\(run)")
            #expect(run.stderr.contains("credentials") && !run.stderr.contains("hunter2"), "\(run)")
        }
        #expect(try await cli.run("config", "get", "server").status != 0, "nothing was saved")
        // Written into the config file by hand: refused with its line, still without repeating the URL.
        let config = try #require(cli.environment["TRENDY_CONFIG"])
        try Data("server = \"\(url)\"\n".utf8).write(to: URL(fileURLWithPath: config))
        let fromFile = try await cli.run("events", "list")
        #expect(fromFile.status == 1 && fromFile.stderr.contains("\(config):1"), "\(fromFile)")
        #expect(fromFile.stderr.contains("credentials") && !fromFile.stderr.contains("hunter2"), "\(fromFile)")
    }
}
