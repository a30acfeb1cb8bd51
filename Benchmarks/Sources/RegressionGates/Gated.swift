import Benchmark

extension Benchmark.Configuration {
    /// The configuration of every benchmark that `make bench` gates.
    ///
    /// Instructions and allocations are what the gate checks: their p90 may not exceed the thresholds checked in
    /// under `Benchmarks/Thresholds` by more than 10 %. They count work, so they hold from run to run whatever else
    /// the machine does (instructions need hardware counters: where `perf stat -e instructions` says "not supported",
    /// as on our CI machines, the plugin leaves them out and allocations remain). Time, throughput and peak memory
    /// are reported beside them, never gated: they follow the machine's load.
    ///
    /// Benchmark names have no spaces or slashes: the plugin (1.38.1) writes a threshold file under the name with
    /// those replaced by `_`, but looks it up under the name as given.
    public static func gated(
        maxIterations: Int, maxDuration: Duration = .seconds(10), warmupIterations: Int = 1
    ) -> Self {
        let regression = BenchmarkThresholds(relative: [.p90: 10.0])
        let reported = BenchmarkThresholds(relative: [:], absolute: [:])
        return .init(
            metrics: [.instructions, .mallocCountTotal, .wallClock, .throughput, .peakMemoryResident],
            warmupIterations: warmupIterations,
            maxDuration: maxDuration,
            maxIterations: maxIterations,
            thresholds: [
                .instructions: regression, .mallocCountTotal: regression, .wallClock: reported,
                .throughput: reported, .peakMemoryResident: reported,
            ]
        )
    }
}
