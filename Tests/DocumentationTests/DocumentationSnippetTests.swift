import Foundation
import Testing

/// The articles quote the compiled snippets exactly, so an article cannot drift from code that builds and runs.
@Suite("DocC getting-started articles quote compiled code")
struct DocumentationSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(
        "each swift block of each getting-started article is a compiled snippet",
        arguments: [
            "Models", "Protocols", "Persistence", "Sync", "TestSupport",
        ])
    func articleQuotesSnippets(module: String) throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Modules/\(module)/\(module).docc/GettingStarted.md"),
            encoding: .utf8)
        let snippets = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/DocumentationTests/Snippets.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(article)
        #expect(!blocks.isEmpty, "the article shows code")
        for (index, block) in blocks.enumerated() {
            let snippet = Self.snippet("\(module)/\(index + 1)", in: snippets)
            #expect(
                snippet == block,
                "\(module) article block \(index + 1) differs from `// snippet: \(module)/\(index + 1)`")
        }
    }

    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(dedented(current ?? []))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static func snippet(_ name: String, in source: String) -> String? {
        var lines: [Substring]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// snippet: \(name)" {
                lines = []
            } else if lines != nil, trimmed == "// end" {
                return dedented(lines ?? [])
            } else {
                lines?.append(line)
            }
        }
        return nil
    }

    /// Removes the indentation every non-blank line shares.
    static func dedented(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }
}
