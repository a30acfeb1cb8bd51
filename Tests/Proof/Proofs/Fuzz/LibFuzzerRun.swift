import Foundation
import ParserChecks
import TrendyServerTesting

/// The coverage-guided run: `trendy-fuzz` (built with `-sanitize=fuzzer`, `make proof` does) for a while, from a
/// corpus of every Fixtures/api document under every parser selector.
public enum LibFuzzerRun {
    public struct Outcome: Sendable {
        public let executions: Int
        /// The input libFuzzer saved for a crash or broken rule, if any.
        public let crashInput: String?
        public let output: String
        public var passed: Bool { crashInput == nil && executions > 0 }
    }

    public static func run(
        binary: String, fixtures: [(name: String, bytes: [UInt8])], seconds: Int, seed: UInt64, artifacts: String
    ) async throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ProofError("\(binary) is not built: make proof builds it with -sanitize=fuzzer")
        }
        let corpus = try makeScratchDirectory("trendy-fuzz-corpus")
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        for (name, bytes) in fixtures {
            for selector in ParserChecks.targets.indices {
                try Data([UInt8(selector)] + bytes).write(to: corpus.appendingPathComponent("\(name)-\(selector)"))
            }
        }
        // libFuzzer, not Swift's backtracer, must see the crash, to save the input.
        let result = try await ChildProcess.run(
            executable: URL(fileURLWithPath: binary),
            [
                corpus.path, "-max_total_time=\(seconds)", "-seed=\(seed)", "-print_final_stats=1",
                "-rss_limit_mb=4096", "-max_len=65536", "-artifact_prefix=\(artifacts)/",
            ],
            environment: ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 })
        let text = result.stdout + "\n" + result.stderr
        let lines = text.split(separator: "\n")
        let executions = lines.first { $0.hasPrefix("stat::number_of_executed_units:") }
            .flatMap { Int($0.split(separator: " ").last ?? "") }
        let crash = lines.first { $0.contains("Test unit written to") }.map {
            String($0.split(separator: " ").last ?? "")
        }
        let failure = result.status != 0 && crash == nil ? "exit \(result.status)" : nil
        return Outcome(
            executions: executions ?? 0, crashInput: crash ?? failure,
            output: lines.filter { !$0.hasPrefix("#") }.suffix(30).joined(separator: "\n"))
    }
}
