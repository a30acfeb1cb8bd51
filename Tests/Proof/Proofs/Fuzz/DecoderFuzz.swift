import Foundation
import Models
import ParserChecks

/// The client's parsers fed mutated Fixtures/api documents: every response type through the decoder `APIClient`
/// uses, the change feed's fast path against its `Decodable` twin, `JSONText`, `ProblemDetails.parse` and
/// `RFC3339`. A crash ends the process (and the run); a wrong answer is a finding with the seed and iteration.
public enum DecoderFuzz {
    public struct Finding: Sendable, CustomStringConvertible {
        public let target: String
        public let fixture: String
        public let iteration: Int
        public let problem: String
        /// The input, as text (invalid UTF-8 shown as U+FFFD), at most 400 characters.
        public let input: String

        public var description: String {
            "\(target) on a mutation of \(fixture) (iteration \(iteration)): \(problem)\n  input: \(input)"
        }
    }

    public struct Report: Sendable {
        public var executions = 0
        public var accepted = 0
        public var findings: [Finding] = []
    }

    /// The Fixtures/api documents, by file name.
    public static func fixtures(root: URL) throws -> [(name: String, bytes: [UInt8])] {
        let folder = root.appendingPathComponent("Fixtures/api")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted().map { ($0, Array(try Data(contentsOf: folder.appendingPathComponent($0)))) }
    }

    /// Every target on `iterations` mutations of each fixture.
    public static func run(seed: UInt64, iterations: Int, fixtures: [(name: String, bytes: [UInt8])]) -> Report {
        var report = Report()
        var mutator = Mutator(seed: seed)
        for (name, original) in fixtures {
            for iteration in 0..<iterations {
                let input = iteration == 0 ? original : mutator.mutate(original)
                for (target, check) in ParserChecks.targets {
                    report.executions += 1
                    switch check(input) {
                    case .accepted: report.accepted += 1
                    case .refused: break
                    case .wrong(let problem):
                        report.findings.append(
                            Finding(
                                target: target, fixture: name, iteration: iteration, problem: problem,
                                input: String(String(decoding: input, as: UTF8.self).prefix(400))))
                    }
                }
            }
        }
        return report
    }
}
