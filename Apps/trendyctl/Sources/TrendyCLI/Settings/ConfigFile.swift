import Foundation
import Models
import Persistence
import TOMLKit

/// The config file, in TOML (parsed by TOMLKit on toml++): `[sync]` tables and dotted keys, comments, every
/// string and number form. Keys are addressed by their dotted path (`sync.interval`).
///
/// Only the keys below are settable; `config set` refuses others, and a file that holds others, or a value out of
/// its range, is refused on load with its line (`problems`), so a typo is an error rather than a silent no-op.
/// `config unset` removes any key the file holds, known or not, so the command a problem names repairs it.
/// Writing re-renders the whole document under a header comment.
struct ConfigFile: Equatable {
    struct Key: Sendable {
        let name: String
        let summary: String
        let isNumber: Bool
        /// Nil when valid, else what is wrong.
        let validate: @Sendable (String) -> String?
    }

    static let keys: [Key] = [
        Key(name: "server", summary: "server root URL, e.g. http://127.0.0.1:8080", isNumber: false) { value in
            if Settings.holdsCredentials(value) { return Settings.credentialsMessage("the server URL") }
            return ServerRoot(value) == nil ? "server must be an http or https URL without a path" : nil
        },
        Key(name: "sync.interval", summary: "seconds between runs of `sync --watch` (default 60)", isNumber: true) {
            value in
            Int(value).map { $0 >= 1 && $0 <= 86_400 } == true ? nil : "sync.interval must be 1–86400 seconds"
        },
        Key(
            name: "sync.profile",
            summary: "throughput (default: batches of 500, pages of 500/1000) or standard (the spec's 50/100/50)",
            isNumber: false
        ) { value in
            ["throughput", "standard"].contains(value) ? nil : "sync.profile must be throughput or standard"
        },
    ]

    static let header = "# trendyctl configuration; edit with `trendyctl config set KEY VALUE`"

    static func key(_ name: String) throws(CLIError) -> Key {
        guard let key = keys.first(where: { $0.name == name }) else {
            throw .usage("unknown config key \"\(name)\"; known keys: \(keys.map(\.name).joined(separator: ", "))")
        }
        return key
    }

    /// Every scalar of the document by dotted path, as text (`sync.interval` → `"60"`).
    private(set) var values: [String: String]
    /// The document as TOML, so that `set` keeps what this version does not know (other keys, arrays, dates).
    private var document: String

    init() {
        values = [:]
        document = ""
    }

    static func == (lhs: ConfigFile, rhs: ConfigFile) -> Bool { lhs.values == rhs.values }

    /// Reads `path`; a missing file is an empty config.
    static func load(_ path: String) throws(CLIError) -> ConfigFile {
        guard FileManager.default.fileExists(atPath: path) else { return ConfigFile() }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .failure("cannot read the config file \(path): \(error.localizedDescription)", code: "config")
        }
        return try parse(text, path: path)
    }

    /// Parses TOML; an error names the file, line and column, and what to do.
    static func parse(_ text: String, path: String) throws(CLIError) -> ConfigFile {
        let table = try table(text, path: path)
        var config = ConfigFile()
        config.document = text
        config.values = flatten(table)
        return config
    }

    subscript(name: String) -> String? { values[name] }

    /// What is wrong in the file as loaded: keys this version does not know, and values out of their range, each
    /// as `PATH:LINE: …` with what is allowed. Every command but those that repair the file refuses to run on them,
    /// so `[sync] interval = 0` is an error, never a loop of a thousand syncs a second.
    func problems(path: String) -> [String] {
        var found: [String] = []
        let known = Self.keys.map(\.name).joined(separator: ", ")
        for name in values.keys.sorted() {
            let place = path + (Self.line(of: name, in: document).map { ":\($0)" } ?? "")
            guard let key = Self.keys.first(where: { $0.name == name }) else {
                found.append(
                    "\(place): unknown key \"\(name)\" (known keys: \(known)); remove it with "
                        + "`trendyctl config unset \(name)`")
                continue
            }
            if let value = values[name], let problem = key.validate(value) {
                // A value holding credentials is not repeated: the message would print them.
                let shown = Settings.holdsCredentials(value) ? "" : " = \(value)"
                found.append(
                    "\(place): \(name)\(shown) is not allowed: \(problem); fix it with "
                        + "`trendyctl config set \(name) VALUE` or `trendyctl config unset \(name)`")
            }
        }
        return found
    }

    /// The line (from 1) where the dotted key `name` is set in TOML `text`, as `name = …` under its `[table]`, or as
    /// a dotted key.
    static func line(of name: String, in text: String) -> Int? {
        func unquoted(_ text: Substring) -> String {
            text.split(separator: ".").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            }.joined(separator: ".")
        }
        var table = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("["), let close = line.firstIndex(of: "]") {
                table = unquoted(line[line.index(after: line.startIndex)..<close])
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = unquoted(line[..<equals])
            if (table.isEmpty ? key : table + "." + key) == name { return index + 1 }
        }
        return nil
    }

    mutating func set(_ name: String, _ value: String) throws(CLIError) {
        let key = try Self.key(name)
        if let problem = key.validate(value) { throw .usage(problem) }
        try edit { table in
            let path = name.split(separator: ".").map(String.init)
            var parent = table
            for component in path.dropLast() {
                if let existing = parent[component]?.table {
                    parent = existing
                } else {
                    parent[component] = TOMLTable()
                    guard let created = parent[component]?.table else { return }
                    parent = created
                }
            }
            if key.isNumber, let number = Int(value) {
                parent[path[path.count - 1]] = number
            } else {
                parent[path[path.count - 1]] = value
            }
        }
    }

    /// Removes `name`: a known key, or any key the file holds (a typo, or a key of another version), which is how
    /// the unknown-key problem is repaired. A name that is neither is refused, so a typo in `unset` is not a no-op.
    mutating func unset(_ name: String) throws(CLIError) {
        if values[name] == nil { _ = try Self.key(name) }
        try edit { table in
            let path = name.split(separator: ".").map(String.init)
            var parents = [table]
            for component in path.dropLast() {
                guard let next = parents[parents.count - 1][component]?.table else { return }
                parents.append(next)
            }
            parents[parents.count - 1].remove(at: path[path.count - 1])
            // Drop tables the removal left empty, innermost first.
            for depth in stride(from: parents.count - 1, to: 0, by: -1) where parents[depth].isEmpty {
                parents[depth - 1].remove(at: path[depth - 1])
            }
        }
    }

    /// The document as written: the header comment, then TOML (tables as `[sync]` sections).
    var text: String {
        guard let table = try? Self.table(document, path: "") else { return Self.header + "\n" }
        let body = table.convert(to: .toml, options: [.allowUnicodeStrings, .indentations])
        return Self.header + "\n" + (body.isEmpty ? "" : body + "\n")
    }

    private mutating func edit(_ change: (TOMLTable) -> Void) throws(CLIError) {
        let table = try Self.table(document, path: "the config file")
        change(table)
        document = table.convert(to: .toml, options: [.allowUnicodeStrings, .indentations])
        values = Self.flatten(table)
    }

    private static func table(_ text: String, path: String) throws(CLIError) -> TOMLTable {
        do {
            return try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .failure(
                "\(path):\(error.source.begin.line):\(error.source.begin.column): \(error.description); "
                    + "fix the file or rewrite a key with `trendyctl config set KEY VALUE`",
                code: "config")
        } catch {
            throw .failure("\(path): not TOML: \(error)", code: "config")
        }
    }

    private static func flatten(_ table: TOMLTable, prefix: String = "") -> [String: String] {
        var values: [String: String] = [:]
        for key in table.keys {
            guard let value = table[key] else { continue }
            let name = prefix + key
            if let nested = value.table {
                values.merge(flatten(nested, prefix: name + "."), uniquingKeysWith: { _, new in new })
            } else if let string = value.string {
                values[name] = string
            } else if let integer = value.int {
                values[name] = String(integer)
            } else if let bool = value.bool {
                values[name] = String(bool)
            } else if let double = value.double {
                values[name] = String(double)
            }
        }
        return values
    }

    /// Writes atomically, 0600, creating the folder 0700.
    func save(to path: String) throws(CLIError) {
        do {
            try PrivateFiles.write(Data(text.utf8), to: path)
        } catch {
            throw .failure("cannot write the config file \(path): \(error.localizedDescription)", code: "config")
        }
    }
}
