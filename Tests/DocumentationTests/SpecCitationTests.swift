import Foundation
import Testing

/// Every `§n.n`, `Sn` and `Rn` that code, tests and docs cite names a section or rule that
/// docs/spec has. A section is a heading (`### 4.7 Event-create batches`), a label defined in bold (`**§3.5a …**`),
/// or a numbered item of a section (§4.7.2 is item 2 of §4.7; §4.4.4.1 item 1 under item 4 of §4.4). A citation
/// that names its document (`api-v1 §6.5`, `sync-engine.md §3.7`, `spec/trendyctl.md §1.5`) must name a section of
/// that document; one that does not, a section of any of the three. Citations of other documents
/// (`RFC 9110 §10.2.3`) are not ours to check.
@Suite("Spec citations")
struct SpecCitationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The three documents of docs/spec, by the names citations give them.
    static let documents = ["api-v1", "sync-engine", "trendyctl"]

    /// Every section, label and numbered item of one document.
    static func sections(of name: String) throws -> Set<String> {
        var valid: Set<String> = []
        let text = try String(contentsOf: root.appendingPathComponent("docs/spec/\(name).md"), encoding: .utf8)
        var section: String?
        var item: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let heading = line.firstMatch(of: /^#+\s+(\d+(?:\.\d+)*[a-z]?)[.\s]/) {
                section = String(heading.1)
                valid.insert(String(heading.1))
                continue
            }
            for label in line.matches(of: /\*\*§(\d+(?:\.\d+)*[a-z]?)/) { valid.insert(String(label.1)) }
            if let numbered = line.firstMatch(of: /^(\s*)(\d+)\.\s/), let section {
                if numbered.1.isEmpty {
                    item = section + "." + numbered.2
                    valid.insert(section + "." + numbered.2)
                } else if let item {
                    valid.insert(item + "." + numbered.2)
                }
            }
        }
        return valid
    }

    /// Every section, label and numbered item of the three documents.
    static func sections() throws -> Set<String> {
        try documents.reduce(into: []) { $0.formUnion(try sections(of: $1)) }
    }

    /// The S and R rules of sync-engine.md, defined in bold (`**S25**`, `**R3 Rebase …**`).
    static func rules() throws -> Set<String> {
        let text = try String(
            contentsOf: root.appendingPathComponent("docs/spec/sync-engine.md"), encoding: .utf8)
        return Set(text.matches(of: /\*\*([SR]\d+)[\s*]/).map { String($0.1) })
    }

    /// The files whose citations are checked: sources, tests, benchmarks and the pages of docs/ beside the spec.
    static func citingFiles() throws -> [URL] {
        var files: [URL] = ["README.md", "CHANGELOG.md"].map { root.appendingPathComponent($0) }
        for folder in ["Modules", "Apps", "Tests", "Benchmarks/Sources", "docs"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in walker {
                let path = file.path
                if path.contains("/.build") || path.contains("/docs/spec/") { continue }
                if ["swift", "md", "yaml"].contains(file.pathExtension) { files.append(file) }
            }
        }
        return files
    }

    @Test("every §, S and R cited in code, tests and docs exists in docs/spec")
    func citationsResolve() throws {
        let sections = try Self.sections()
        let rules = try Self.rules()
        #expect(sections.contains("13") && sections.contains("4.7.2") && rules.contains("S88") && rules.contains("R14"))
        var unknown: [String] = []
        let files = try Self.citingFiles()
        #expect(files.count > 100, "the walk found the sources")
        let byDocument = Dictionary(uniqueKeysWithValues: try Self.documents.map { ($0, try Self.sections(of: $0)) })
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
            let cited = /(RFC \d+ )?(?:(api-v1|sync-engine|trendyctl)(?:\.md)? )?§\s?(\d+(?:\.\d+)*[a-z]?)/
            for citation in text.matches(of: cited) where citation.1 == nil {
                var section = String(citation.3)
                if section.hasSuffix(".") { section.removeLast() }
                // A citation that names its document is checked against that document alone.
                if let document = citation.2.map(String.init) {
                    if byDocument[document]?.contains(section) != true {
                        unknown.append("\(name): \(document) §\(section)")
                    }
                } else if !sections.contains(section) {
                    unknown.append("\(name): §\(section)")
                }
            }
            for citation in text.matches(of: /(?:^|[^A-Za-z0-9_])([SR]\d{1,3})(?![0-9A-Za-z_])/) {
                if !rules.contains(String(citation.1)) { unknown.append("\(name): \(citation.1)") }
            }
        }
        #expect(unknown.isEmpty, "citations docs/spec does not have:\n\(unknown.joined(separator: "\n"))")
    }
}
