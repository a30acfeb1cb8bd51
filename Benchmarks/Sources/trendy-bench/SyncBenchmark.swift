import ArgumentParser
import BenchmarkSupport
import Foundation
import TrendyServerTesting

/// Push, bootstrap and a no-op sync against the release trendy-server, each with our profile and
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
        let server = try await BenchServer.start(
            users: 2 + 2 * runs * SyncScenario.Kind.allCases.count,
            storage: ["--db", directory.appendingPathComponent("server.sqlite").path])
        defer { server.stop() }
        print("sync benchmark: trendy-server (release, SQLite file) on \(server.root); best of \(runs) runs")

        let seeding = try await Measure.secondsAwaiting({ try await server.seed(user: 1, events: bootstrapEvents) })
        print(String(format: "seeded %d events in %.1f s", bootstrapEvents, seeding))

        var counter = 0
        func scenario(_ kind: SyncScenario.Kind, _ profile: SyncScenario.Profile) async throws -> SyncScenario.Result {
            var best: SyncScenario.Result?
            for _ in 0..<runs {
                counter += 1
                let token = BenchServer.token(user: kind == .push ? counter + 1 : 1)
                let result = try await Self.child([
                    "sync-scenario", "--kind", kind.rawValue, "--profile", profile.rawValue, "--server",
                    server.process.url,
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

    /// Runs this executable with `arguments` and decodes its one JSON line.
    static func child(_ arguments: [String]) async throws -> SyncScenario.Result {
        // This very executable (it lives in the benchmark package's build folder, not beside trendy-server).
        let result = try await ChildProcess.run(
            executable: Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]), arguments,
            environment: ProcessInfo.processInfo.environment)
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw ValidationError("sync-scenario \(arguments.prefix(5)) failed with \(result.status)")
        }
        return try JSONDecoder().decode(SyncScenario.Result.self, from: Data(line.utf8))
    }
}
