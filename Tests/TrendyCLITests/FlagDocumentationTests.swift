import Foundation
import Models
import Testing
import TrendyServerTesting

/// trendyctl's flags, as the binary declares them (`--experimental-dump-help`), are the ones
/// docs/cli.md documents, and every flag spec/trendyctl.md §1 names exists.
@Suite("trendyctl flags in the docs")
struct FlagDocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every long option of every subcommand.
    static func declaredFlags() async throws -> Set<String> {
        let dump = try await ChildProcess.run("trendyctl", ["--experimental-dump-help"], environment: [:])
        let document = try JSONText.parse(dump.stdout)
        var flags: Set<String> = []
        func walk(_ command: JSONValue?) {
            for argument in command?["arguments"]?.arrayValue ?? [] {
                for name in argument["names"]?.arrayValue ?? [] where name["kind"]?.stringValue == "long" {
                    if let flag = name["name"]?.stringValue { flags.insert(flag) }
                }
            }
            for subcommand in command?["subcommands"]?.arrayValue ?? [] { walk(subcommand) }
        }
        walk(document["command"])
        return flags
    }

    static func flags(in text: Substring) -> Set<String> {
        Set(text.matches(of: /--([a-z][a-z0-9-]+)/).map { String($0.1) })
    }

    @Test("docs/cli.md documents every flag trendyctl has, and no other")
    func cliPageMatchesTheBinary() async throws {
        let declared = try await Self.declaredFlags()
        #expect(declared.count > 40 && declared.contains("wide"), "the dump was read: \(declared.sorted())")
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let documented = Self.flags(in: page[...])
        #expect(declared.subtracting(documented).isEmpty, "undocumented: \(declared.subtracting(documented).sorted())")
        #expect(documented.subtracting(declared).isEmpty, "no such flag: \(documented.subtracting(declared).sorted())")
    }

    @Test("every flag spec/trendyctl.md §1 names exists")
    func specFlagsExist() async throws {
        let declared = try await Self.declaredFlags().union(["generate-completion-script"])
        let spec = try String(contentsOf: Self.root.appendingPathComponent("docs/spec/trendyctl.md"), encoding: .utf8)
        let section = spec[..<(spec.range(of: "## 2. trendy-server")?.lowerBound ?? spec.endIndex)]
        let named = Self.flags(in: section)
        #expect(
            named.subtracting(declared).isEmpty,
            "the spec names flags trendyctl lacks: \(named.subtracting(declared).sorted())")
    }
}
