import ArgumentParser
import Foundation
import Models
import Networking
import Protocols
import TrendyServer
import TrendyServerTesting

/// Issue 4, item 5: push, bootstrap and a no-op sync against the release trendy-server, each with our profile and
/// with the original app's constants, against the same server in the same run.
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Push, bootstrap and no-op syncs against trendy-server, ours vs the original constants.")

    @Option(help: "Offline events pushed by one sync.") var pushEvents = 10_000
    @Option(help: "Events on the server for the bootstrap.") var bootstrapEvents = 100_000
    @Option(help: "Repetitions; the best run is reported.") var runs = 3

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-bench-sync-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("jwt-secret")
        try Data("trendy-bench-secret".utf8).write(to: secret)
        let server = try await ServerProcess.start([
            "--port", "0", "--db", directory.appendingPathComponent("server.sqlite").path,
            "--jwt-secret-file", secret.path, "--log-level", "error",
        ])
        defer { server.stop() }
        guard let root = ServerRoot(server.url) else { throw ValidationError("bad server url \(server.url)") }
        print("sync benchmark: trendy-server (release, SQLite file) on \(server.url); best of \(runs) runs")

        let seeded = Self.token(for: UUID().uuidString.lowercased())
        let seeding = try await Measure.secondsAwaiting({
            try await Self.seed(root: root, token: seeded, events: bootstrapEvents)
        })
        print(String(format: "seeded %d events in %.1f s", bootstrapEvents, seeding))

        var counter = 0
        func scenario(_ kind: SyncScenario.Kind, _ profile: SyncScenario.Profile) async throws -> SyncScenario.Result {
            var best: SyncScenario.Result?
            for _ in 0..<runs {
                counter += 1
                let token = kind == .push ? Self.token(for: UUID().uuidString.lowercased()) : seeded
                let result = try await Self.child([
                    "sync-scenario", "--kind", kind.rawValue, "--profile", profile.rawValue, "--server", server.url,
                    "--token", token, "--events", "\(pushEvents)",
                    "--database", directory.appendingPathComponent("device-\(counter).sqlite").path,
                ])
                guard result.outcome == "synced" else { throw ValidationError("\(kind) ended \(result.outcome)") }
                if best.map({ result.seconds < $0.seconds }) ?? true { best = result }
            }
            guard let best else { throw ValidationError("no runs") }
            return best
        }

        Report.row("scenario / profile", ["time", "requests", "peak RSS", "rows"])
        for kind in SyncScenario.Kind.allCases {
            let ours = try await scenario(kind, .ours)
            let original = try await scenario(kind, .original)
            for (profile, result) in [("ours", ours), ("original", original)] {
                Report.row(
                    "\(kind.rawValue) / \(profile)",
                    [
                        String(format: "%.3f s", result.seconds), "\(result.requests) req",
                        String(format: "%.0f MB", result.peakResidentMegabytes),
                        "pushed \(result.pushed), pulled \(result.pulled), local \(result.localEvents)",
                    ])
            }
            Report.row(
                "\(kind.rawValue) / original ÷ ours",
                [String(format: "%.2f× time", original.seconds / ours.seconds)])
        }
    }

    static func token(for user: String) -> String {
        BearerTokens.hs256(
            user: user, secret: Array("trendy-bench-secret".utf8), expiresAt: Date().addingTimeInterval(24 * 3600))
    }

    /// `events` events of one type, 500 per batch, one second apart.
    static func seed(root: ServerRoot, token: String, events: Int) async throws {
        let client = APIClient(
            configuration: try APIClient.Configuration(serverRoot: root, requestTimeout: 120, resourceTimeout: 600),
            tokenProvider: StaticTokenProvider(token))
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let type = try await client.createEventType(
            CreateEventTypeRequest(id: UUIDv7.generate(at: start), name: "Seeded", color: "#336699", icon: "chart"))
        var index = 0
        while index < events {
            let count = min(500, events - index)
            let batch = (index..<index + count).map { number in
                let timestamp = start + Double(number)
                return CreateEventRequest(
                    id: UUIDv7.generate(at: timestamp), eventTypeId: type.id, timestamp: timestamp,
                    notes: "seeded event \(number)", properties: [:])
            }
            let answer = try await client.createEventsBatch(batch)
            guard answer.failed == 0 else { throw ValidationError("seeding failed: \(answer.errors.prefix(3))") }
            index += count
        }
    }

    /// Runs this executable with `arguments` and decodes its one JSON line.
    static func child(_ arguments: [String]) async throws -> SyncScenario.Result {
        let result = try await ChildProcess.run(
            "trendy-bench", arguments, environment: ProcessInfo.processInfo.environment)
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw ValidationError("sync-scenario \(arguments.prefix(5)) failed with \(result.status)")
        }
        return try JSONDecoder().decode(SyncScenario.Result.self, from: Data(line.utf8))
    }
}
