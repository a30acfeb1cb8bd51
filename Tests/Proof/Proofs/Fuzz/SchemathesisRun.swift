import Foundation
import Models
import TrendyServerTesting

/// schemathesis (PyPI) against a fresh `trendy-server` process: requests generated from docs/openapi.yaml, in its
/// coverage, fuzzing and stateful phases, checked for server errors and for answers that break the document.
public enum SchemathesisRun {
    public struct Outcome: Sendable {
        public let generated: Int
        public let passed: Bool
        /// schemathesis's own summary and failures (its last lines).
        public let output: String
    }

    /// Checks left out, and why (docs/reliability.md): `unsupported_method` wants 405 where api-v1 §2.1 says 404;
    /// the data-acceptance checks judge a request by the schema alone, while references, uniqueness and an event
    /// id's version and time are rules a schema cannot carry.
    static let excludedChecks = ["unsupported_method", "positive_data_acceptance", "negative_data_rejection"]

    public static func run(document: String, seed: UInt64, maxExamples: Int) async throws -> Outcome {
        let directory = try makeScratchDirectory("trendy-schemathesis")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ProofServer.start(in: directory, faults: .none, seed: seed)
        defer { server.stop() }
        let result = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"),
            [
                "schemathesis", "run", document, "--url", server.root.url.absoluteString, "--header",
                "Authorization: Bearer \(server.token)", "--checks", "all", "--exclude-checks",
                excludedChecks.joined(separator: ","), "--max-examples", "\(maxExamples)", "--seed", "\(seed)",
                "--no-color",
                // The change stream's answer never ends: schemathesis would wait on it until its timeout.
                "--exclude-operation-id", "changeStream",
            ],
            environment: ProcessInfo.processInfo.environment, currentDirectory: directory)
        let text = result.stdout + "\n" + result.stderr
        guard !text.contains("No such file or directory") || text.contains("Test cases") else {
            throw ProofError("schemathesis is not installed: pip install schemathesis (make proof does)")
        }
        // "3036 generated, 3036 passed, 46 skipped" (or "… N found M unique failures").
        let generated = text.split(separator: "\n").lazy.compactMap { line -> Int? in
            guard let range = line.range(of: " generated") else { return nil }
            return Int(line[..<range.lowerBound].split(separator: " ").last ?? "")
        }.first
        let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
        return Outcome(generated: generated ?? 0, passed: result.status == 0, output: tail)
    }
}
