import Foundation
import Models
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// `trendyctl sync --watch` in live mode (trendyctl §1.2, sync-engine R12), binaries only: a watcher prints the
/// other device's edit as it happens, and pushes what other trendyctl processes write on its database.
@Suite("sync --watch, live")
struct LiveWatchTests {
    /// The process exited while a test waited for its output.
    struct ExitedWhileWaiting: Error, CustomStringConvertible {
        let what: String
        let stdout: String
        let stderr: String
        var description: String { "the process exited while waiting for \(what): stdout \(stdout) stderr \(stderr)" }
    }

    /// Waits (`waitUntil`) until `condition` holds on what the process printed so far; ends at once if it exits.
    static func waitForOutput(
        _ process: ChildProcess.Running, _ what: String, until condition: (String) -> Bool
    ) async throws {
        try await waitUntil(what, lastSeen: "stdout \(process.stdoutSoFar) stderr \(process.stderrSoFar)") {
            if condition(process.stdoutSoFar) { return true }
            guard process.exitStatus == nil else {
                throw ExitedWhileWaiting(what: what, stdout: process.stdoutSoFar, stderr: process.stderrSoFar)
            }
            return false
        }
    }

    static func appliedLines(_ output: String) -> [JSONValue] {
        output.split(separator: "\n").compactMap { try? JSONText.parse(String($0)) }.filter { $0["event"] == "applied" }
    }

    @Test("a watcher applies another device's edits as they happen, a JSON line a burst; Ctrl-C exits 130")
    func watcherSeesTheOtherDevice() async throws {
        try await withTwoDevices { server, laptop, phone in
            _ = try await laptop.json("types", "add", "Coffee")
            _ = try await laptop.json("sync")
            let watch = try await ChildProcess.start(
                "trendyctl", ["sync", "--watch", "--json"], environment: phone.environment)
            try await Self.waitForOutput(watch, "the first round") { $0.contains("\"outcome\":\"synced\"") }
            try await Self.waitForOutput(watch, "streaming") { _ in server.server.openStreamCount == 1 }
            for note in ["first", "second"] {
                _ = try await laptop.json("events", "add", "Coffee", "--notes", note)
                _ = try await laptop.json("sync")
            }
            try await Self.waitForOutput(watch, "two applied lines") { Self.appliedLines($0).count >= 2 }
            let applied = Self.appliedLines(watch.stdoutSoFar)
            #expect(applied.allSatisfy { $0["changes"] == 1 && $0["latency_ms"]?.doubleValue != nil })
            watch.send(SIGINT)
            let result = await watch.result()
            #expect(result.status == 130, "\(result.stderr)")
            let notes = try await phone.json("events", "list").arrayValue?.compactMap { $0["notes"]?.stringValue }
            #expect(Set(notes ?? []) == ["first", "second"])
        }
    }

    @Test("a watcher pushes what another trendyctl process writes on its database, without a sync call")
    func watcherPushesOtherProcessesWrites() async throws {
        try await withDevice(token: "alice-token") { server, laptop in
            _ = try await laptop.json("types", "add", "Tea")
            _ = try await laptop.json("sync")
            let watch = try await ChildProcess.start(
                "trendyctl", ["sync", "--watch", "--json"], environment: laptop.environment)
            try await Self.waitForOutput(watch, "streaming") { _ in server.server.openStreamCount == 1 }
            _ = try await laptop.json("events", "add", "Tea", "--notes", "from another process")
            try await Self.waitForOutput(watch, "a round that pushed it") { output in
                output.split(separator: "\n").contains { (try? JSONText.parse(String($0)))?["pushed"] == 1 }
            }
            watch.send(SIGTERM)
            #expect(await watch.result().status == 143)
            #expect(try await laptop.json("status")["pending"] == 0)
        }
    }

    @Test("a server without the stream: --watch polls (the original's quirks)")
    func pollsWithoutAStream() async throws {
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.quirks = .original
        try await LiveTrendyServer.with(configuration) { server in
            let cli = try CLI(server: server.root.text, token: "alice-token")
            _ = try await cli.json("types", "add", "Walk")
            let watch = try await ChildProcess.start(
                "trendyctl", ["sync", "--watch", "--interval", "1", "--json"], environment: cli.environment)
            try await Self.waitForOutput(watch, "two rounds") { output in
                output.split(separator: "\n").filter { $0.contains("\"outcome\"") }.count >= 2
            }
            #expect(server.server.openStreamCount == 0)
            let fallbacks = watch.stdoutSoFar.split(separator: "\n").filter { $0.contains("\"polling\"") }
            #expect(fallbacks == [#"{"event":"polling","interval":1,"reason":"no_stream"}"#], "said once")
            watch.send(SIGINT)
            #expect(await watch.result().status == 130)
        }
    }

    @Test(
        "R12 at the server's cap of streams a watcher says it polls, then goes live again on its own once a slot frees")
    func fallsBackAndComesBack() async throws {
        var configuration = serverConfiguration(tokens: Users.tokens)
        configuration.maxStreamsPerUser = 1
        try await LiveTrendyServer.with(configuration) { server in
            let laptop = try CLI(server: server.root.text, token: "alice-token")
            let phone = try CLI(server: server.root.text, token: "alice-token")
            _ = try await laptop.json("types", "add", "Walk")
            let first = try await ChildProcess.start(
                "trendyctl", ["sync", "--watch", "--json"], environment: laptop.environment)
            try await Self.waitForOutput(first, "the laptop streams") { _ in server.server.openStreamCount == 1 }
            let second = try await ChildProcess.start("trendyctl", ["sync", "--watch"], environment: phone.environment)
            try await Self.waitForOutput(second, "the phone's fallback") { _ in
                second.stderrSoFar.contains("polling; trying the stream again in 5 s")
            }
            #expect(server.server.openStreamCount == 1)
            first.send(SIGTERM)
            #expect(await first.result().status == 143)
            try await Self.waitForOutput(second, "the phone live again") { _ in
                second.stderrSoFar.contains("live again: the change stream is open")
            }
            #expect(server.server.openStreamCount == 1)
            _ = try await laptop.json("events", "add", "Walk", "--notes", "seen live")
            _ = try await laptop.json("sync")
            try await Self.waitForOutput(second, "the phone applies it from the stream") {
                $0.contains("applied 1 change")
            }
            second.send(SIGINT)
            #expect(await second.result().status == 130)
            #expect(second.stderrSoFar.components(separatedBy: "polling;").count == 2, "the fallback said once")
        }
    }
}
