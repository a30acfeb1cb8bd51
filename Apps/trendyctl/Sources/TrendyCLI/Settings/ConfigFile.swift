import Foundation
import Models

/// The config file: a small TOML document of `key = value` lines (strings quoted, numbers bare, `#` comments).
///
/// Only the keys below exist; `config set` refuses others, so a typo is an error rather than a silent no-op.
/// Writing rewrites the whole file, sorted, with a header comment.
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
            ServerRoot(value) == nil ? "server must be an http or https URL without a path" : nil
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

    static func key(_ name: String) throws(CLIError) -> Key {
        guard let key = keys.first(where: { $0.name == name }) else {
            throw .usage("unknown config key \"\(name)\"; known keys: \(keys.map(\.name).joined(separator: ", "))")
        }
        return key
    }

    private(set) var values: [String: String] = [:]

    init(values: [String: String] = [:]) { self.values = values }

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

    static func parse(_ text: String, path: String) throws(CLIError) -> ConfigFile {
        var values: [String: String] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .failure("\(path):\(number + 1): expected key = value", code: "config")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") {
                guard value.count >= 2, value.hasSuffix("\"") else {
                    throw .failure("\(path):\(number + 1): unterminated string", code: "config")
                }
                value = String(value.dropFirst().dropLast())
                    .replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
            }
            values[name] = value
        }
        return ConfigFile(values: values)
    }

    subscript(name: String) -> String? { values[name] }

    mutating func set(_ name: String, _ value: String) throws(CLIError) {
        let key = try Self.key(name)
        if let problem = key.validate(value) { throw .usage(problem) }
        values[name] = value
    }

    mutating func unset(_ name: String) throws(CLIError) {
        _ = try Self.key(name)
        values[name] = nil
    }

    var text: String {
        var lines = ["# trendyctl configuration; edit with `trendyctl config set KEY VALUE`"]
        for name in values.keys.sorted() {
            guard let value = values[name] else { continue }
            let isNumber = Self.keys.first { $0.name == name }?.isNumber ?? false
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            lines.append("\(name) = " + (isNumber ? value : "\"\(escaped)\""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes atomically, creating the folder.
    func save(to path: String) throws(CLIError) {
        do {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .failure("cannot write the config file \(path): \(error.localizedDescription)", code: "config")
        }
    }
}
