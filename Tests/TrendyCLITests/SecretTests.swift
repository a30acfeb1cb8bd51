import Foundation
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// The bearer token is a secret: it lives in its 0600 file and nowhere else a user or another program could see.
@Suite("trendyctl keeps the token secret")
struct SecretTests {
    @Test("the token is absent from every output, the database, history, export, config and the error of a refusal")
    func tokenNeverLeaks() async throws {
        let secret = "x-secret-\(UUID().uuidString.lowercased())"
        let wrong = "x-wrong-\(UUID().uuidString.lowercased())"
        try await LiveTrendyServer.with(serverConfiguration(tokens: [secret: Users.alice])) { server in
            let cli = try CLI()
            let login = try await cli.run(
                "login", "--server", server.root.text, "--with-token", stdin: secret + "\n")
            #expect(login.status == 0, "\(login)")
            var runs = [login]
            runs.append(try await cli.run("types", "add", "Tea", "--json"))
            runs.append(try await cli.run("events", "add", "Tea", "--notes", "green", "--json"))
            runs.append(try await cli.run("sync", "--json"))
            runs.append(try await cli.run("sync", "--verbose"))
            runs.append(try await cli.run("status", "--json"))
            runs.append(try await cli.run("history", "--json"))
            runs.append(try await cli.run("queue", "list", "--json"))
            runs.append(try await cli.run("config", "list"))
            runs.append(try await cli.run("export"))
            runs.append(try await cli.run("export", "--format", "csv"))
            #expect(runs[3].json?["outcome"] == "synced", "the token worked: \(runs[3])")
            #expect(runs[4].status == 0, "the verbose sync ran: \(runs[4])")
            #expect(runs[6].status == 0 && runs[6].stdout.contains("synced"), "history lists the sync: \(runs[6])")
            #expect(runs[9].status == 0 && runs[9].stdout.contains("green"), "the export ran: \(runs[9])")

            let refused = try CLI()
            _ = try await refused.run("login", "--server", server.root.text, "--with-token", stdin: wrong + "\n")
            _ = try await refused.run("types", "add", "Tea")
            let denied = try await refused.run("sync")
            #expect(denied.status == 4, "a refused token exits 4: \(denied)")
            runs.append(denied)
            runs.append(try await refused.run("sync", "--json"))

            for run in runs {
                #expect(
                    !run.stdout.contains(secret) && !run.stderr.contains(secret) && !run.stdout.contains(wrong)
                        && !run.stderr.contains(wrong),
                    "a token leaked into the output: \(run)")
            }
            var scanned = 0
            for home in [cli.home, refused.home] {
                let files = FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil)
                while let file = files?.nextObject() as? URL {
                    guard file.lastPathComponent != "token", !file.hasDirectoryPath else { continue }
                    let bytes = (try? Data(contentsOf: file)) ?? Data()
                    scanned += 1
                    #expect(
                        bytes.range(of: Data(secret.utf8)) == nil && bytes.range(of: Data(wrong.utf8)) == nil,
                        "\(file.lastPathComponent) holds a token")
                }
            }
            #expect(scanned >= 4, "the databases and config files were read")
        }
    }

    @Test("the token is absent from a running sync's argv (/proc/PID/cmdline) and from trendy-server's trace logs")
    func tokenNotInArgvOrServerLogs() async throws {
        let secret = "x-secret-\(UUID().uuidString.lowercased())"
        let wrong = "x-wrong-\(UUID().uuidString.lowercased())"
        let tokensFile = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try Data("\(secret):\(Users.alice)\n".utf8).write(to: tokensFile)
        defer { try? FileManager.default.removeItem(at: tokensFile) }
        // The most talkative level the server has; the token comes from a file, so it is not in the server's argv.
        let server = try await ServerProcess.start([
            "--port", "0", "--in-memory", "--tokens-file", tokensFile.path, "--log-level", "trace",
        ])
        let cli = try CLI()
        let login = try await cli.run("login", "--server", server.url, "--with-token", stdin: secret + "\n")
        #expect(login.status == 0, "\(login)")
        #expect(try await cli.run("types", "add", "Tea").status == 0)

        let watching = try await ChildProcess.start(
            "trendyctl", ["sync", "--watch", "--interval", "3600", "--verbose"], environment: cli.environment)
        try await waitUntil("the watching sync has synced once") {
            (try? await cli.run("status", "--json"))?.json?["last_sync_at"]?.stringValue != nil
        }
        let arguments = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: "/proc/\(watching.pid)/cmdline")), as: UTF8.self)
        watching.send(SIGTERM)
        let watched = await watching.result()
        #expect(arguments.contains("--watch"), "the argv of the running sync was read: \(arguments)")
        #expect(!arguments.contains(secret), "the token is in trendyctl's argv")
        #expect(
            watched.status == 143,
            "SIGTERM ends a watch with 128+15 (trendyctl §1.5): \(watched.status), \(watched.stderr)")
        #expect(!watched.stderr.contains(secret))

        _ = try await RawHTTP.send("GET", server.url + "/api/v1/event-types", token: wrong)
        _ = try await RawHTTP.send("GET", server.url + "/api/v1/event-types", token: secret)
        await server.terminate()
        let logs = await server.errors()
        #expect(logs.contains("/api/v1/event-types"), "the trace log was captured: \(logs.prefix(500))")
        #expect(!logs.contains(secret) && !logs.contains(wrong), "a token is in the server's log")
    }
}
