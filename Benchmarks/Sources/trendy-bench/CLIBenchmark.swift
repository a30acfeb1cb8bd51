import ArgumentParser
import Foundation
import Models
import TrendyServerTesting

/// Wall time of `trendyctl events add` on a warm database, from process start to exit.
struct CLIBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cli", abstract: "Wall time of `trendyctl events add` (release build) on a warm database.")

    @Option(help: "Timed runs.") var runs = 50
    @Option(help: "Events added before timing, one process each.") var existing = 200

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trendy-bench-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = [
            "TRENDY_DB": directory.appendingPathComponent("local.sqlite").path,
            "TRENDY_CONFIG": directory.appendingPathComponent("config.toml").path,
            "TRENDY_TOKEN_FILE": directory.appendingPathComponent("token").path, "HOME": directory.path,
        ]
        func trendyctl(_ arguments: [String]) async throws -> Double {
            var status: Int32 = -1
            let seconds = try await Measure.secondsAwaiting {
                status = try await ChildProcess.run("trendyctl", arguments, environment: environment).status
            }
            guard status == 0 else { throw ValidationError("trendyctl \(arguments) exited \(status)") }
            return seconds
        }
        // Warm: the database exists, holds events and a queue, and its pages are in the OS cache.
        _ = try await trendyctl(["types", "add", "Coffee", "-q"])
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<existing {
            _ = try await trendyctl([
                "events", "add", "Coffee", "-q", "--at", RFC3339.string(from: start + Double(index)),
            ])
        }
        var adds = Samples()
        var starts = Samples()
        for _ in 0..<runs {
            adds.append(try await trendyctl(["events", "add", "Coffee", "-q"]))
            starts.append(try await trendyctl(["--version"]))
        }
        print("trendyctl (release): \(runs) runs on a database with \(existing + 1) queued events")
        Report.row(
            "events add",
            [
                "p50 " + Report.milliseconds(adds.percentile(0.5)), "p90 " + Report.milliseconds(adds.percentile(0.9)),
            ])
        Report.row("--version (process start alone)", ["p50 " + Report.milliseconds(starts.percentile(0.5))])
    }
}
