import ArgumentParser

/// Release-only benchmarks. Figures are recorded in docs/performance.md; they never run inside `make test`.
@main
struct TrendyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trendy-bench",
        abstract: "Benchmarks of the Trendy sync stack (build with -c release).",
        subcommands: [
            StoreBenchmark.self, SyncBenchmark.self, CLIBenchmark.self, SyncScenario.self, LiveBenchmark.self,
        ],
        defaultSubcommand: StoreBenchmark.self)
}
