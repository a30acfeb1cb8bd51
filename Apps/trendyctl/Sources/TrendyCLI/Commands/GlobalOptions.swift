import ArgumentParser

/// The options every command accepts, before or after the subcommand (spec/trendyctl.md §1.1).
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Local database file (env TRENDY_DB).", valueName: "path"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp("Config file (env TRENDY_CONFIG).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Server root URL (env TRENDY_SERVER).", valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("token-file"),
        help: ArgumentHelp("File holding the bearer token (env TRENDY_TOKEN_FILE).", valueName: "path"))
    var tokenFile: String?

    @Flag(name: .long, help: "Machine-readable JSON on stdout.")
    var json = false

    @Flag(name: [.short, .long], help: "Only data and errors; no messages or progress.")
    var quiet = false

    @Flag(name: [.short, .long], help: "More detail on stderr.")
    var verbose = false

    @Flag(name: .long, help: "Tables show every cell whole (long cells are otherwise cut with …).")
    var wide = false

    // Not `--color`: `types add` and `types edit` take `--color HEX` (spec/trendyctl.md).
    @Option(
        name: .customLong("color-output"),
        help: ArgumentHelp(
            "Colour on stdout: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always or never.",
            valueName: "when"))
    var colorOutput: Console.ColorChoice = .auto
}
