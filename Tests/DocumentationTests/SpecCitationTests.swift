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

    enum Patterns {
        static let heading = TextPattern(#"^#+\s+(\d+(?:\.\d+)*[a-z]?)[.\s]"#)
        static let label = TextPattern(#"\*\*§(\d+(?:\.\d+)*[a-z]?)"#)
        static let numberedItem = TextPattern(#"^(\s*)(\d+)\.\s"#)
        /// A `§` citation: group 1 an RFC's number (not ours to check), 2 the document it names, 3 the section.
        static let citation = TextPattern(
            #"(RFC \d+ )?(?:(api-v1|sync-engine|trendyctl)(?:\.md)? )?§\s?(\d+(?:\.\d+)*[a-z]?)"#)
        static let rule = TextPattern(#"(?:^|[^A-Za-z0-9_])([SR]\d{1,3})(?![0-9A-Za-z_])"#)
    }

    /// The three documents of docs/spec, by the names citations give them.
    static let documents = ["api-v1", "sync-engine", "trendyctl"]

    /// Every section, label and numbered item of one document.
    static func sections(of name: String) throws -> Set<String> {
        var valid: Set<String> = []
        let text = try String(contentsOf: root.appendingPathComponent("docs/spec/\(name).md"), encoding: .utf8)
        var section: String?
        var item: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#"), let heading = Patterns.heading.firstMatch(in: line)?[0] {
                section = heading
                valid.insert(heading)
                continue
            }
            if line.contains("**§") {
                for label in Patterns.label.matches(in: String(line)) { label[0].map { _ = valid.insert($0) } }
            }
            if let numbered = Patterns.numberedItem.firstMatch(in: line), let indent = numbered[0],
                let number = numbered[1], let section
            {
                if indent.isEmpty {
                    item = section + "." + number
                    valid.insert(section + "." + number)
                } else if let item {
                    valid.insert(item + "." + number)
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
        return Set(TextPattern(#"\*\*([SR]\d+)[\s*]"#).matches(in: text).compactMap { $0[0] })
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
            for citation in Patterns.citation.matches(in: text) where citation[0] == nil {
                guard var section = citation[2] else { continue }
                if section.hasSuffix(".") { section.removeLast() }
                // A citation that names its document is checked against that document alone.
                if let document = citation[1] {
                    if byDocument[document]?.contains(section) != true {
                        unknown.append("\(name): \(document) §\(section)")
                    }
                } else if !sections.contains(section) {
                    unknown.append("\(name): §\(section)")
                }
            }
            for citation in Patterns.rule.matches(in: text).compactMap({ $0[0] }) where !rules.contains(citation) {
                unknown.append("\(name): \(citation)")
            }
        }
        #expect(unknown.isEmpty, "citations docs/spec does not have:\n\(unknown.joined(separator: "\n"))")
    }
}
