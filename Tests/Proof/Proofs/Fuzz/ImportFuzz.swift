import Foundation
import Models
import TrendyServerTesting

/// `trendyctl import` given mutated export files, through the binary: each run exits 0 (it imported) or 65 with a
/// message (it refused); a refused file leaves the database as it was (`trendyctl export` before and after), and
/// nothing crashes or hangs.
public enum ImportFuzz {
    public struct Report: Sendable {
        public var runs = 0
        public var imported = 0
        public var refused = 0
        public var findings: [String] = []
    }

    public static func run(seed: UInt64, files: Int) async throws -> Report {
        let home = try makeScratchDirectory("trendy-import-fuzz")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = trendyctlEnvironment(home: home, database: home.appendingPathComponent("local.sqlite").path)
        func trendyctl(_ arguments: String...) async throws -> ChildProcess.Result {
            try await ChildProcess.run("trendyctl", arguments, environment: environment)
        }
        /// The database's whole content, as an export without its `exported_at`.
        func content() async throws -> JSONValue? {
            guard case .object(var document)? = try? JSONText.parse(try await trendyctl("export").stdout) else {
                return nil
            }
            document["exported_at"] = nil
            return .object(document)
        }
        // A small account of every kind, exported as the seed document.
        for arguments in [
            ["types", "add", "Coffee"], ["types", "add", "Run", "--color", "#FF0000"],
            ["props", "add", "Coffee", "cups", "--label", "Cups", "--kind", "number"],
            ["events", "add", "Coffee", "--notes", "first", "--prop", "cups=2"], ["events", "add", "Run"],
            ["geofences", "add", "Home", "--lat", "52.5", "--lon", "13.4", "--radius", "100"],
        ] {
            let result = try await ChildProcess.run("trendyctl", arguments, environment: environment)
            guard result.status == 0 else { throw ProofError("setting up: trendyctl \(arguments): \(result.stderr)") }
        }
        let original = Array(try await trendyctl("export").stdout.utf8)
        var mutator = Mutator(seed: seed)
        var report = Report()
        let file = home.appendingPathComponent("mutated.json")
        for iteration in 0..<files {
            let before = try await content()
            try Data(mutator.mutate(original)).write(to: file)
            let result = try await trendyctl("import", file.path)
            report.runs += 1
            switch result.status {
            case 0: report.imported += 1
            case 65:
                report.refused += 1
                if result.stderr.isEmpty {
                    report.findings.append("file \(iteration): exit 65 without a message")
                }
                if try await content() != before {
                    report.findings.append("file \(iteration): a refused import changed the database")
                }
            default:
                report.findings.append("file \(iteration): exit \(result.status): \(result.stderr.prefix(300))")
            }
        }
        return report
    }
}
