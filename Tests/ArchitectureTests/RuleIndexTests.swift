import Foundation
import Testing

/// docs/sync-state-machine.md maps every rule S1…S88 of the sync-engine spec to the tests that prove it. These tests
/// keep that index true: every rule has a row, and every test a row names exists and cites the rule, in its name
/// and at the assertion that proves it.
@Suite("Rule index")
struct RuleIndexTests {
    static let ruleCount = 88

    struct Row {
        let rule: Int
        let tests: [String]
    }

    static func rows() throws -> [Row] {
        let url = DependencyRulesTests.packageRoot.appendingPathComponent("docs/sync-state-machine.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Row? in
            guard line.hasPrefix("| S"), let number = Int(line.dropFirst(3).prefix { $0.isNumber }) else { return nil }
            let tests = line.split(separator: "“").dropFirst().compactMap { $0.split(separator: "”").first }
            return Row(rule: number, tests: tests.map(String.init))
        }
    }

    /// Every test in the sources by name (the first string of `@Test(` and of a contract suite's `check(`), with
    /// its body: the text after the name up to the next test.
    static func tests() throws -> [String: String] {
        var tests: [String: String] = [:]
        let root = DependencyRulesTests.packageRoot
        for folder in ["Tests", "Modules/TestSupport", "Modules/TestSupportContracts"] {
            let files = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let source = try String(contentsOf: file, encoding: .utf8)
                // A test starts where `@Test(` or `check(` is followed by its name's string literal.
                var starts: [(name: String, marker: String.Index, body: String.Index)] = []
                var cursor = source.startIndex
                let markers = ["@Test(", "check("]
                while let marker = markers.compactMap({ source.range(of: $0, range: cursor..<source.endIndex) })
                    .min(by: { $0.lowerBound < $1.lowerBound })
                {
                    cursor = marker.upperBound
                    let start = source[marker.upperBound...].drop { $0 == " " || $0 == "\n" }
                    guard start.first == "\"" else { continue }
                    let name = String(start.dropFirst().prefix { $0 != "\"" })
                    starts.append((name, marker.lowerBound, source.index(start.startIndex, offsetBy: name.count + 2)))
                }
                for (index, test) in starts.enumerated() {
                    let end = index + 1 < starts.count ? starts[index + 1].marker : source.endIndex
                    tests[test.name, default: ""] += String(source[test.body..<max(test.body, end)])
                }
            }
        }
        return tests
    }

    /// Assertions, and the helpers that assert: `expectFailure` (contract suites), `expectBytes` (fixture bytes).
    static let assertions = ["#expect", "#require", "Issue.record", "expectFailure", "expectBytes"]

    /// True when `body` names `S<rule>` in an assertion's message or in a comment within three lines of an
    /// assertion: the proof says which of its checks is the rule's.
    static func citesNextToAnAssertion(_ rule: Int, _ body: String) -> Bool {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            guard line.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains("S\(rule)") else { continue }
            guard line.contains("//") || line.contains("\"") else { continue }
            let window = lines[max(0, index - 3)...min(lines.count - 1, index + 3)]
            if window.contains(where: { near in assertions.contains { near.contains($0) } }) { return true }
        }
        return false
    }

    @Test("every rule S1…S88 has a row naming at least one test")
    func everyRuleHasARow() throws {
        let rows = try Self.rows()
        #expect(rows.map(\.rule) == Array(1...Self.ruleCount))
        for row in rows where row.tests.isEmpty { Issue.record("S\(row.rule) names no test") }
    }

    @Test("every test the index names exists, cites its rule in its name and next to the assertion that proves it")
    func namedTestsExist() throws {
        let tests = try Self.tests()
        #expect(tests.count > 200, "the scanner found the test names")
        for row in try Self.rows() {
            for test in row.tests {
                guard let body = tests[test] else {
                    Issue.record("S\(row.rule): no test named “\(test)”")
                    continue
                }
                let cited = test.split { !$0.isLetter && !$0.isNumber }.contains { $0 == "S\(row.rule)" }
                #expect(cited, "S\(row.rule): “\(test)” does not cite the rule in its name")
                #expect(
                    Self.citesNextToAnAssertion(row.rule, body),
                    "S\(row.rule): “\(test)” names the rule in no assertion message or comment next to an assertion")
            }
        }
    }

    @Test("the citation check tells a message or comment at an assertion from a rule named elsewhere")
    func citationCheck() {
        #expect(Self.citesNextToAnAssertion(7, "    #expect(rows.isEmpty, \"S7 nothing half-written\")"))
        #expect(
            Self.citesNextToAnAssertion(7, "    // S7: the mutation failed, so the entity is absent\n    #expect(x)"))
        #expect(!Self.citesNextToAnAssertion(7, "    #expect(rows.isEmpty, \"S70 stuck feed\")"))
        #expect(!Self.citesNextToAnAssertion(7, "    // S7 set-up\n\n\n\n\n    #expect(x)"))
        #expect(!Self.citesNextToAnAssertion(7, "    let s7 = S7\n    #expect(x)"))
    }
}
