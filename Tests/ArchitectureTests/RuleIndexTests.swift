import Foundation
import Testing

/// docs/sync-state-machine.md maps every rule S1…S88 of the sync-engine spec to the tests that prove it. These tests
/// keep that index true: every rule has a row, and every test a row names exists and cites the rule.
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

    /// Every test name in the sources: the first string of `@Test(` and of a contract suite's `check(`.
    static func testNames() throws -> Set<String> {
        var names = Set<String>()
        let root = DependencyRulesTests.packageRoot
        for folder in ["Tests", "Modules/TestSupport", "Modules/TestSupportContracts"] {
            let files = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let source = try String(contentsOf: file, encoding: .utf8)
                for marker in ["@Test(", "check("] {
                    for piece in source.components(separatedBy: marker).dropFirst() {
                        let start = piece.drop { $0 == " " || $0 == "\n" }
                        guard start.first == "\"" else { continue }
                        names.insert(String(start.dropFirst().prefix { $0 != "\"" }))
                    }
                }
            }
        }
        return names
    }

    @Test("every rule S1…S88 has a row naming at least one test")
    func everyRuleHasARow() throws {
        let rows = try Self.rows()
        #expect(rows.map(\.rule) == Array(1...Self.ruleCount))
        for row in rows where row.tests.isEmpty { Issue.record("S\(row.rule) names no test") }
    }

    @Test("every test the index names exists and cites its rule")
    func namedTestsExist() throws {
        let names = try Self.testNames()
        #expect(names.count > 200, "the scanner found the test names")
        for row in try Self.rows() {
            for test in row.tests {
                let exists = names.contains(test)
                #expect(exists, "S\(row.rule): no test named “\(test)”")
                let cited = test.split { !$0.isLetter && !$0.isNumber }.contains { $0 == "S\(row.rule)" }
                #expect(cited, "S\(row.rule): “\(test)” does not cite the rule")
            }
        }
    }
}
