import ArgumentParser

/// The options every command accepts, before or after the subcommand (spec/trendyctl.md §1.1).
///
/// Every option that takes a value takes the next word, whatever it looks like, as getopt does: `--notes -x`,
/// `--default -1`, `--end -30m` and `--lon -0.12` are values, never flags (docs/cli.md, "Commands").
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Local database file (env TRENDY_DB).", valueName: "path"))
    var db: String?

    @Option(
        name: .long, parsing: .unconditional, help: ArgumentHelp("Config file (env TRENDY_CONFIG).", valueName: "path"))
    var config: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Server root URL (env TRENDY_SERVER).", valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("token-file"), parsing: .unconditional,
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
        name: .customLong("color-output"), parsing: .unconditional,
        help: ArgumentHelp(
            "Colour on stdout: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always or never.",
            valueName: "when"))
    var colorOutput: Console.ColorChoice = .auto
}
