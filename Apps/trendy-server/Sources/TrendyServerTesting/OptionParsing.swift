import Models

/// How each option of a swift-argument-parser binary reads its value, from its `--experimental-dump-help`: the
/// tests that hold trendyctl and trendy-server to getopt's rule (an option takes its next word, even `-1`) read it.
public enum OptionParsing {
    /// `"binary sub --name"` → the option's `parsingStrategy` (`unconditional`, `next`, …), for every option of the
    /// binary and of each of its subcommands.
    public static func strategies(of binary: String) async throws -> [String: String] {
        let dump = try await ChildProcess.run(binary, ["--experimental-dump-help"], environment: [:])
        var strategies: [String: String] = [:]
        func walk(_ command: JSONValue?, _ path: String) {
            for argument in command?["arguments"]?.arrayValue ?? [] where argument["kind"] == "option" {
                let name = argument["preferredName"]?["name"]?.stringValue ?? "?"
                strategies["\(path) --\(name)"] = argument["parsingStrategy"]?.stringValue ?? "?"
            }
            for subcommand in command?["subcommands"]?.arrayValue ?? [] {
                walk(subcommand, path + " " + (subcommand["commandName"]?.stringValue ?? "?"))
            }
        }
        walk(try JSONText.parse(dump.stdout)["command"], binary)
        return strategies
    }
}
