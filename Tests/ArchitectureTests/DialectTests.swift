import Foundation
import Testing

/// The original backend's deviations are found in one file: `Dialect` (Apps/trendy-server/…/Domain/Dialect.swift)
/// is the only server code that reads the `--quirks` mode; everything else asks it a named question.
@Suite("Dialect")
struct DialectTests {
    /// Where the mode may be named: its declaration, the flag that sets it, and `Dialect`.
    static let allowed: Set<String> = ["Dialect.swift", "ServerConfiguration.swift", "TrendyServerCommand.swift"]

    /// A line that reads the mode: its `.original` case, or `Dialect`'s own flag.
    static func readsMode(_ line: Substring) -> Bool {
        if line.contains("isOriginal") { return true }
        var rest = line[...]
        while let range = rest.range(of: ".original") {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "_") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    @Test("only Dialect reads the --quirks mode: every deviation of the original backend is a member of it")
    func onlyDialectReadsTheMode() throws {
        let sources = DependencyRulesTests.packageRoot.appendingPathComponent("Apps/trendy-server/Sources")
        var readers: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let count = text.split(separator: "\n").filter { line in
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && Self.readsMode(line)
            }.count
            if count > 0 { readers[url.lastPathComponent] = count }
        }
        // The scan sees Dialect's own reads, so a rename cannot make this pass vacuously.
        #expect((readers["Dialect.swift"] ?? 0) > 20)
        for (file, count) in readers.sorted(by: { $0.key < $1.key }) where !Self.allowed.contains(file) {
            Issue.record("\(file) reads the quirks mode \(count) time(s): add a member to Dialect and ask it instead")
        }
    }

    @Test("the mode scanner tells a read of the case from a longer name")
    func scannerReadsCasesOnly() {
        #expect(Self.readsMode("if quirks == .original {"))
        #expect(Self.readsMode("let x = configuration.quirks != .original"))
        #expect(Self.readsMode("guard !dialect.isOriginal else"))
        #expect(!Self.readsMode("let value = request.originalBody"))
        #expect(!Self.readsMode("the original backend answers 500"))
    }
}
