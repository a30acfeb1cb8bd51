import Foundation
import Testing

/// The issue tracker is not part of the repository, so a reader cannot follow a reference to it: code, tests, scripts
/// and docs cite the rule or the section they implement (`sync-engine R15`, `api-v1 §6.5`), never an issue number.
@Suite("Tracker references")
struct TrackerReferenceTests {
    /// Every text file a reader of the repository meets: sources, tests, benchmarks, scripts, docs and the build.
    static func readableFiles() -> [URL] {
        let root = SpecCitationTests.root
        var files = ["README.md", "CHANGELOG.md", "Makefile", "Package.swift", ".ci/run"].map {
            root.appendingPathComponent($0)
        }
        let kinds: Set<String> = ["swift", "md", "yaml", "py", "sh", "toml", "json", ""]
        for folder in ["Modules", "Apps", "Tests", "Benchmarks", "docs", "scripts", "Fixtures"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in walker where kinds.contains(file.pathExtension) {
                let path = file.path
                if path.contains("/.build") || path.contains("/Thresholds/") { continue }
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                    files.append(file)
                }
            }
        }
        return files
    }

    @Test("no code, test, script or doc names an issue of the tracker; each cites its rule or section instead")
    func noIssueNumbers() throws {
        let files = Self.readableFiles()
        #expect(files.count > 200, "the walk found the repository's files")
        // Spelled apart, so that this file does not match itself.
        let word = "iss" + "ue"
        let pattern = TextPattern(#"\b"# + word + #"s?[\s-]+#?[0-9]+"#, caseInsensitive: true)
        var found: [String] = []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let name = file.path.replacingOccurrences(of: SpecCitationTests.root.path + "/", with: "")
            guard pattern.occurs(in: text) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where pattern.occurs(in: line) {
                found.append("\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces).prefix(100))")
            }
        }
        #expect(found.isEmpty, "cite the rule or the section, not the tracker:\n\(found.joined(separator: "\n"))")
    }
}
