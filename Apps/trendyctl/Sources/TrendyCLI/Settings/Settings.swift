import Foundation
import Models

/// Every setting resolved: flag, then environment, then config file, then default (spec/trendyctl.md §1.1).
struct Settings {
    let environment: [String: String]
    let databasePath: String
    let configPath: String
    let tokenFilePath: String
    let config: ConfigFile
    /// The server root and where it came from, nil when none is set anywhere.
    let server: (root: ServerRoot, source: String)?
    /// What is wrong in the config file, each `PATH:LINE: …` (`ConfigFile.problems`).
    let configProblems: [String]

    init(_ options: GlobalOptions, environment: [String: String]) throws(CLIError) {
        self.environment = environment
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        func pick(_ flag: String?, _ variable: String) -> String? {
            if let flag, !flag.isEmpty { return flag }
            if let value = environment[variable], !value.isEmpty { return value }
            return nil
        }
        databasePath = Self.expand(pick(options.db, "TRENDY_DB") ?? dataHome + "/trendy/trendy.sqlite", home: home)
        configPath = Self.expand(
            pick(options.config, "TRENDY_CONFIG") ?? configHome + "/trendy/config.toml", home: home)
        tokenFilePath = Self.expand(
            pick(options.tokenFile, "TRENDY_TOKEN_FILE") ?? configHome + "/trendy/token", home: home)
        config = try ConfigFile.load(configPath)
        configProblems = config.problems(path: configPath)

        let candidates: [(String?, String)] = [
            (options.server.flatMap { $0.isEmpty ? nil : $0 }, "--server"),
            (environment["TRENDY_SERVER"].flatMap { $0.isEmpty ? nil : $0 }, "TRENDY_SERVER"),
            (config["server"], "config file"),
        ]
        var found: (ServerRoot, String)?
        for case (let value?, let source) in candidates {
            if Self.holdsCredentials(value) {
                // The config file's own problems are reported with its line (`configProblems`).
                if source == "config file" { break }
                throw .usage(Self.credentialsMessage(source))
            }
            guard let root = ServerRoot(value) else {
                if source == "config file" { break }
                throw .usage("\(source) is not a server URL: \"\(value)\" (expected e.g. http://127.0.0.1:8080)")
            }
            found = (root, source)
            break
        }
        server = found
    }

    /// Whether a server URL carries a user or password (`http://user:secret@host`): trendyctl refuses it, since
    /// such a URL ends up in config files, shell history and messages, and the API takes only a bearer token.
    static func holdsCredentials(_ value: String) -> Bool {
        guard let components = URLComponents(string: value.trimmingCharacters(in: .whitespaces)) else { return false }
        return components.user != nil || components.password != nil
    }

    /// What to do about a server URL with credentials; the URL itself is not repeated, so its secret is not either.
    static func credentialsMessage(_ source: String) -> String {
        "\(source) holds credentials (user:password@ before the host); remove them: trendyctl sends only the bearer "
            + "token that `trendyctl login` stores"
    }

    /// `TRENDY_TOKEN`, else the token file; nil when neither has one.
    func token() throws(CLIError) -> String? {
        if let token = environment["TRENDY_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return token
        }
        return try TokenFile.read(tokenFilePath)
    }

    /// The server and a token for it, or an error saying how to log in: what every command that talks to it needs.
    func requireLogin() throws(CLIError) -> ServerRoot {
        let server = try requireServer()
        guard try token() != nil else {
            throw .authentication(
                "not logged in to \(server.text): run `trendyctl login --with-token < token.txt` or set TRENDY_TOKEN")
        }
        return server
    }

    /// The server, or an error saying how to set one.
    func requireServer() throws(CLIError) -> ServerRoot {
        guard let server else {
            throw .failure(
                "no server configured: run `trendyctl config set server URL` (or pass --server, or set TRENDY_SERVER)",
                code: "no_server")
        }
        return server.root
    }

    var watchInterval: Int { config["sync.interval"].flatMap(Int.init) ?? 60 }
    var usesStandardProfile: Bool { config["sync.profile"] == "standard" }

    private static func expand(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        return path
    }
}
