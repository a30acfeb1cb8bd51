import Foundation

/// Wall-clock measurement helpers for the benchmarks.
enum Measure {
    /// Runs `body` and returns its duration in seconds.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Runs `body` and returns its duration in seconds.
    static func secondsAwaiting(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The peak resident set size of this process so far, in MiB (Linux `VmHWM`).
    static var peakResidentMegabytes: Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1024
    }
}

/// Latency samples and their summary.
struct Samples {
    private(set) var values: [Double] = []

    mutating func append(_ seconds: Double) { values.append(seconds) }

    func percentile(_ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))
        return sorted[index]
    }

    var total: Double { values.reduce(0, +) }
}

enum Report {
    static func row(_ name: String, _ columns: [String]) {
        print(name.padding(toLength: 46, withPad: " ", startingAt: 0) + columns.joined(separator: "  "))
    }

    static func milliseconds(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }
    static func rate(_ count: Int, _ seconds: Double) -> String {
        String(format: "%.0f rows/s", Double(count) / seconds)
    }
}
