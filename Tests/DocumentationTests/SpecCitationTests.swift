import Foundation
import Testing

/// Every `§n.n`, `Sn` and `Rn` that code, tests and docs cite names a section or rule that docs/spec has, and every
/// `§` citation says which document it cites: `api-v1 §6.5`, `sync-engine §4.7.2`, `trendyctl §1.3` (`.md`, a
/// `spec/` path and backticks may go with the name), or it continues a list that began with a named one
/// (`sync-engine §3.6, §5.3`, `api-v1 §4–§5`, `sync-engine §4.5/§4.6`). It must name a section of that document: a
/// heading (`### 4.7 Event-create batches`), a label defined in bold, or a numbered item of a section (item 2 of section
/// 4.7 is 4.7.2; item 1 under item 4 of 4.4 is 4.4.4.1). A rule's name is its document's: `S` and `R` rules are all
/// sync-engine's. Citations of other documents (`RFC 9110 §10.2.3`) are not ours to check.
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
            #"(RFC \d+ )?(?:`?(?:docs/)?(?:spec/)?(api-v1|sync-engine|trendyctl)(?:\.md)?`?\s)?§\s?(\d+(?:\.\d+)*[a-z]?)"#
        )
        /// What may stand between two citations of one list: commas, dashes, slashes, "and", "or", a step or an item,
        /// and the comment marks of a wrapped line.
        static let listSeparator = TextPattern(#"\A(?:\s|,|–|-|/|\band\b|\bor\b|//+|\bstep \d+\b|\bitem \d+\b)*\z"#)
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
        var unnamed: [String] = []
        let files = try Self.citingFiles()
        #expect(files.count > 100, "the walk found the sources")
        let byDocument = Dictionary(uniqueKeysWithValues: try Self.documents.map { ($0, try Self.sections(of: $0)) })
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
            // The document the list in progress cites, and where its last citation ends.
            var list: (document: String, end: String.Index)?
            for citation in Patterns.citation.locatedMatches(in: text) {
                guard citation.groups[0] == nil, var section = citation.groups[2] else {
                    list = nil
                    continue
                }
                if section.hasSuffix(".") { section.removeLast() }
                let continued = list.flatMap { list in
                    Patterns.listSeparator.occurs(in: text[list.end..<citation.range.lowerBound]) ? list.document : nil
                }
                guard let document = citation.groups[1] ?? continued else {
                    unnamed.append("\(name): §\(section) in “…\(text[..<citation.range.upperBound].suffix(50))”")
                    list = nil
                    continue
                }
                list = (document, citation.range.upperBound)
                if byDocument[document]?.contains(section) != true {
                    unknown.append("\(name): \(document) §\(section)")
                }
            }
            for citation in Patterns.rule.matches(in: text).compactMap({ $0[0] }) where !rules.contains(citation) {
                unknown.append("\(name): \(citation)")
            }
        }
        #expect(unknown.isEmpty, "citations docs/spec does not have:\n\(unknown.joined(separator: "\n"))")
        let advice = "write `api-v1 §`, `sync-engine §` or `trendyctl §`"
        #expect(unnamed.isEmpty, "citations that name no document (\(advice)):\n\(unnamed.joined(separator: "\n"))")
    }
}
