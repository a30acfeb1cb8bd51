import ArgumentParser
import Foundation
import Models

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: data on stdout, messages and progress on stderr (spec/trendyctl.md §1.3).
struct Console: Sendable {
    enum Verbosity: Sendable {
        case quiet, normal, verbose
    }

    /// `--color`.
    enum ColorChoice: String, Sendable, CaseIterable, ExpressibleByArgument {
        case auto, always, never
    }

    /// What the terminals can show.
    struct Terminals: Sendable {
        var stdinIsTerminal: Bool
        var stdoutIsTerminal: Bool
        var stderrIsTerminal: Bool

        static var current: Terminals {
            Terminals(
                stdinIsTerminal: isatty(STDIN_FILENO) == 1, stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
                stderrIsTerminal: isatty(STDERR_FILENO) == 1)
        }
    }

    let json: Bool
    let verbosity: Verbosity
    /// Colour on stdout: `--color always`; with `auto`, a terminal that is not `TERM=dumb`, and `NO_COLOR` unset.
    let colors: Bool
    /// Progress on stderr: a terminal that can redraw a line (not `TERM=dumb`), not `--json`, not `--quiet`.
    let showsProgress: Bool
    /// Questions can be asked: stdin and stderr are terminals, and neither `--json` nor `--quiet` is set.
    let canAsk: Bool
    /// `--wide`: table cells are not shortened.
    let wide: Bool

    init(
        json: Bool, verbosity: Verbosity, color: ColorChoice = .auto, wide: Bool = false,
        environment: [String: String], terminals: Terminals = .current
    ) {
        self.json = json
        self.wide = wide
        self.verbosity = verbosity
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let dumb = environment["TERM"] == "dumb"
        switch color {
        case .always: colors = !json
        case .never: colors = false
        case .auto: colors = !json && !noColor && !dumb && terminals.stdoutIsTerminal
        }
        showsProgress = !json && verbosity != .quiet && !dumb && terminals.stderrIsTerminal
        canAsk = !json && verbosity != .quiet && terminals.stdinIsTerminal && terminals.stderrIsTerminal
    }

    /// Asks `question` on stderr and reads a line from stdin: true for y or yes. Only when `canAsk`.
    func confirm(_ question: String, readAnswer: () -> String? = { readLine() }) -> Bool {
        Self.emit(question + " [y/N] ", to: STDERR_FILENO)
        let answer = readAnswer()?.trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// One line of data on stdout.
    func out(_ line: String) { Self.emit(line + "\n", to: STDOUT_FILENO) }

    /// What a command did, for a person, on stdout (a sync's summary, an import's counts); `--quiet` leaves it out,
    /// so a successful command prints nothing. `--json` output is data and always printed.
    func summary(_ line: String) {
        guard verbosity != .quiet else { return }
        out(line)
    }

    /// A JSON document on stdout, one line, keys sorted.
    func out(json value: JSONValue) { out(JSONText.string(value)) }

    /// A message on stderr, unless `--quiet`.
    func note(_ message: String) {
        guard verbosity != .quiet else { return }
        Self.emit(message + "\n", to: STDERR_FILENO)
    }

    /// A detail on stderr with `--verbose` only.
    func detail(_ message: String) {
        guard verbosity == .verbose else { return }
        Self.emit(message + "\n", to: STDERR_FILENO)
    }

    /// Raw text on stderr (progress redraws).
    func progress(_ text: String) { Self.emit(text, to: STDERR_FILENO) }

    /// An error on stderr: `{"error": …}` with `--json`, else `error: message`. Never silenced.
    func error(_ failure: CLIError) {
        if json {
            let body: JSONValue = ["error": ["code": .string(failure.code), "message": .string(failure.message)]]
            Self.emit(JSONText.string(body) + "\n", to: STDERR_FILENO)
        } else {
            Self.emit("error: \(failure.message)\n", to: STDERR_FILENO)
        }
    }

    /// Bold or dimmed text when colours are on.
    func emphasis(_ text: String) -> String { colors ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { colors ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// Unbuffered, so that stdout and stderr interleave in the order written.
    private static func emit(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written <= 0 { return }
            offset += written
        }
    }
}

extension Console {
    /// `value` with `--json`, else `text`.
    func out(json value: JSONValue, orText text: String) {
        if json { out(json: value) } else { out(text) }
    }

    /// A listing: with `--json` the items as one array, otherwise the table `table` makes. `table` runs only then,
    /// so what only the table shows (type names, event counts) is read only for it.
    func list<Item>(_ items: [Item], json: (Item) -> JSONValue, table: () throws -> Table) rethrows {
        if self.json {
            out(json: .array(items.map(json)))
        } else {
            try table().render(self)
        }
    }
}
