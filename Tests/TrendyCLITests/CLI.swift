import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

/// The built `trendyctl`, run as a user would, in a private home: its own database, config and token file, chosen
/// through `TRENDY_*` variables so that nothing on the machine is read or written.
final class CLI: Sendable {
    let home: URL
    let environment: [String: String]

    init(server: String? = nil, token: String? = nil) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("trendyctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = [
            "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "TRENDY_DB": home.appendingPathComponent("local.sqlite").path,
            "TRENDY_CONFIG": home.appendingPathComponent("config.toml").path,
            "TRENDY_TOKEN_FILE": home.appendingPathComponent("token").path, "TZ": "UTC",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        if let server { environment["TRENDY_SERVER"] = server }
        if let token { environment["TRENDY_TOKEN"] = token }
        self.environment = environment
    }

    deinit { try? FileManager.default.removeItem(at: home) }

    var databasePath: String { environment["TRENDY_DB"] ?? "" }

    struct Run: CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String

        var json: JSONValue? { try? JSONText.parse(stdout) }
        var errorJSON: JSONValue? { try? JSONText.parse(stderr) }
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    /// Runs `trendyctl arguments…`; `extra` overrides environment variables.
    func run(_ arguments: String..., stdin: String? = nil, extra: [String: String] = [:]) async throws -> Run {
        try await run(arguments, stdin: stdin, extra: extra)
    }

    func run(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:]) async throws -> Run {
        let result = try await ChildProcess.run(
            "trendyctl", arguments, environment: environment.merging(extra) { $1 },
            stdin: stdin.map { Data($0.utf8) })
        return Run(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Runs `trendyctl arguments…` on a pseudo-terminal (util-linux `script`), as at a keyboard: stdin, stdout and
    /// stderr are a terminal, and `input` is what the user types. Output arrives merged, as a terminal shows it.
    func runAtTerminal(_ arguments: [String], typing input: String) async throws -> Run {
        let command = ([try ServerProcess.executable("trendyctl").path] + arguments).map { "'\($0)'" }
            .joined(separator: " ")
        let result = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"],
            environment: environment.merging(["TERM": "xterm"]) { $1 }, stdin: Data(input.utf8))
        return Run(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Runs a command that must succeed and print one JSON document; returns it.
    func json(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let run = try await run(arguments + ["--json"])
        #expect(run.status == 0, "\(arguments): \(run)", sourceLocation: sourceLocation)
        return try #require(run.json, "\(arguments) printed no JSON: \(run)", sourceLocation: sourceLocation)
    }
}

extension JSONValue {
    /// The sorted member names of an object.
    var keys: [String] { objectValue.map { $0.keys.sorted() } ?? [] }
}

/// A trendy-server configuration for this process with static tokens: token → user id.
func serverConfiguration(tokens: [String: String]) -> ServerConfiguration {
    var configuration = LiveTrendyServer.testConfiguration()
    configuration.staticTokens = tokens
    return configuration
}

/// A trendy-server on 127.0.0.1 that knows `Users`, and two databases of alice's account on it: a laptop and a phone.
func withTwoDevices(_ body: (LiveTrendyServer, CLI, CLI) async throws -> Void) async throws {
    try await LiveTrendyServer.with(serverConfiguration(tokens: Users.tokens)) { server in
        let laptop = try CLI(server: server.root.text, token: "alice-token")
        try await body(server, laptop, try CLI(server: server.root.text, token: "alice-token"))
    }
}

/// A trendy-server on 127.0.0.1 that knows `Users`, and one database on it that uses `token`.
func withDevice(token: String, _ body: (LiveTrendyServer, CLI) async throws -> Void) async throws {
    try await LiveTrendyServer.with(serverConfiguration(tokens: Users.tokens)) { server in
        try await body(server, try CLI(server: server.root.text, token: token))
    }
}

/// Two users' ids and their tokens.
enum Users {
    static let alice = "0190f5c0-3f00-7a11-8b22-0000000a11ce"
    static let bob = "0190f5c0-3f00-7a11-8b22-0000000000b0"
    static let tokens = ["alice-token": alice, "bob-token": bob]
}
