import ArgumentParser
import Foundation
import Proofs
import TrendyServer
import TrendyServerTesting

/// `trendy-proof`: the long proofs of docs/reliability.md against the built `trendy-server` and `trendyctl`. Each
/// part prints one line; the last line sums them up. On a failure: the seed, its log and what broke.
@main
struct TrendyProofCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trendy-proof",
        abstract: "Randomized convergence with faults, kill -9 crash trials and fuzzing of the Trendy stack.")

    enum Part: String, CaseIterable, ExpressibleByArgument {
        case convergence, instances, live, crash, fuzz, libfuzzer, schemathesis, feed
    }

    @Option(help: "The parts to run, comma-separated: \(Part.allCases.map(\.rawValue).joined(separator: ", ")).")
    var parts = Part.allCases.map(\.rawValue).joined(separator: ",")

    @Option(help: "Convergence: number of seeds.") var seeds = 200
    @Option(help: "Convergence: the first seed; the others follow it.") var firstSeed: UInt64 = 1
    @Option(help: "Convergence: random operations per seed before the faults stop.") var operations = 150

    @Option(help: "instances: seeds of the convergence run on two instances sharing PostgreSQL.")
    var instanceSeeds = 100

    @Option(help: "live: seeds of the convergence run with a device in live mode, stream cuts and server restarts.")
    var liveSeeds = 50

    @Option(help: "Crash: number of trials.") var crashTrials = 50
    @Option(help: "Crash: the first trial's seed.") var firstCrashSeed: UInt64 = 1
    @Option(help: "Crash: events pushed and pulled per trial.") var crashEvents = 5000

    @Option(help: "Fuzz: the mutator's seed.") var fuzzSeed: UInt64 = 1
    @Option(help: "Fuzz: mutations of each Fixtures/api document, each fed to every parser.") var fuzzIterations =
        20_000
    @Option(help: "Fuzz: mutated requests sent to trendy-server.") var fuzzRequests = 20_000
    @Option(help: "Fuzz: mutated files given to trendyctl import.") var fuzzImports = 300
    @Option(help: "libfuzzer: the trendy-fuzz binary built with -sanitize=fuzzer.")
    var libfuzzerBinary = ".build-fuzz/release/trendy-fuzz"
    @Option(help: "libfuzzer: seconds to run.") var libfuzzerSeconds = 300
    @Option(help: "schemathesis: examples per operation and phase.") var schemathesisExamples = 100
    @Option(help: "feed: rounds of the concurrent-writer check on two instances (needs TRENDY_TEST_POSTGRES_URL).")
    var feedRounds = 100
    @Option(help: "The repository root (for Fixtures/ and docs/openapi.yaml).") var root = "."

    @Flag(help: "Print every run's log, passed or not.") var verbose = false

    func validate() throws {
        for name in parts.split(separator: ",") where Part(rawValue: String(name)) == nil {
            throw ValidationError("unknown part \(name); the parts are \(Part.allCases.map(\.rawValue))")
        }
    }

    func run() async throws {
        let chosen = Set(parts.split(separator: ",").compactMap { Part(rawValue: String($0)) })
        let started = ContinuousClock.now
        var lines: [String] = []
        var failed = false
        for part in Part.allCases where chosen.contains(part) {
            let result: PartResult
            switch part {
            case .convergence: result = try await convergence()
            case .instances: result = try await instances()
            case .live: result = try await convergence(part: .live, count: liveSeeds, instances: 1)
            case .crash: result = try await crash()
            case .fuzz: result = try await fuzz()
            case .libfuzzer: result = try await libFuzzer()
            case .schemathesis: result = try await schemathesis()
            case .feed: result = try await feed()
            }
            // At once, also when stdout is a file (`make proof > log`): a long run shows each part as it ends.
            FileHandle.standardOutput.write(Data((result.line + "\n").utf8))
            lines.append(result.summary)
            failed = failed || result.failed
            if result.hung { break }
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        print("proof: \(failed ? "FAILED" : "passed") — \(lines.joined(separator: "; ")) (\(seconds) s)")
        // Exit at once: a hung run's task would keep an orderly shutdown waiting.
        if failed { Foundation.exit(1) }
    }

    struct PartResult {
        var line: String
        var summary: String
        var failed: Bool
        var hung = false
    }

    /// The runs of a seeded part, one seed after another; a failure prints its report, a hang stops the part (its
    /// task cannot be taken back).
    struct SeedTally<Outcome: SeededOutcome> {
        var ran = 0
        var failures: [Outcome] = []
        var hung = false
        var seconds: Int64 = 0
        var passed: Int { ran - failures.count }
    }

    func runSeeds<Outcome: SeededOutcome>(
        _ seeds: Range<UInt64>, _ run: (UInt64) async throws -> Outcome, each: (Outcome) -> Void
    ) async throws -> SeedTally<Outcome> {
        var tally = SeedTally<Outcome>()
        let started = ContinuousClock.now
        for seed in seeds {
            let outcome = try await run(seed)
            tally.ran += 1
            each(outcome)
            if !outcome.passed { tally.failures.append(outcome) }
            if !outcome.passed || verbose { print(outcome.report) }
            if outcome.hung {
                tally.hung = true
                break
            }
        }
        tally.seconds = (ContinuousClock.now - started).components.seconds
        return tally
    }

    func convergence() async throws -> PartResult {
        try await convergence(part: .convergence, count: seeds, instances: 1)
    }

    /// The convergence run again with two instances on one PostgreSQL schema behind a balancer (docs/server.md).
    func instances() async throws -> PartResult {
        guard LiveTrendyServer.postgresTestURL() != nil else {
            let reason = LiveTrendyServer.postgresUnavailableReason
            return PartResult(
                line: "instances: FAILED, no PostgreSQL (\(reason))", summary: "instances not run", failed: true)
        }
        return try await convergence(part: .instances, count: instanceSeeds, instances: 2)
    }

    /// `count` seeds from `firstSeed` of the convergence run on `instances` servers.
    func convergence(part: Part, count: Int, instances: Int) async throws -> PartResult {
        var deadLetters = 0
        var entities = 0
        var switches = 0
        var connections: [Int] = []
        var moves: [String: Int] = [:]
        var quietChecks = 0
        var unquietChecks = 0
        let seedRange = firstSeed..<(firstSeed + UInt64(count))
        let tally = try await runSeeds(seedRange) { seed in
            var settings = ProofSettings(seed: seed)
            settings.operations = operations
            settings.instances = instances
            if part == .live {
                settings.liveDevices = 1
                settings.faults.probabilityStreamCut = 0.1
            }
            return try await ConvergenceProof.run(settings)
        } each: { outcome in
            deadLetters += outcome.deadLetters
            entities += outcome.serverEntities
            switches += outcome.switches
            moves.merge(outcome.moves, uniquingKeysWith: +)
            quietChecks += outcome.quietChecks
            unquietChecks += outcome.unquietChecks
            for (index, count) in outcome.connectionsPerInstance.enumerated() {
                if connections.count <= index { connections.append(0) }
                connections[index] += count
            }
        }
        var line = "\(part.rawValue): \(tally.passed) passed, \(tally.failures.count) failed "
        line += "(seeds \(firstSeed)…\(seedRange.upperBound - 1), \(operations) operations each, "
        if instances > 1 {
            let perInstance = connections.map(String.init).joined(separator: " + ")
            line += "\(instances) instances on PostgreSQL, \(perInstance) connections, \(switches) moves, "
        }
        line += "\(entities) server entities, \(deadLetters) dead letters, \(tally.seconds) s)"
        line += "\n  \(quietChecks) comparisons with the server after a quiet pass mid-run (\(unquietChecks) passes "
        line += "not quiet under faults)"
        line += "\n  moves: " + moves.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        if let first = tally.failures.first {
            let seedOption = part == .instances ? "--instance-seeds" : part == .live ? "--live-seeds" : "--seeds"
            line +=
                "\nreproduce: trendy-proof --parts \(part.rawValue) \(seedOption) 1 --operations \(operations) "
                + "--first-seed \(first.seed)"
        }
        return PartResult(
            line: line, summary: "\(part.rawValue) \(tally.passed)/\(count) seeds", failed: !tally.failures.isEmpty,
            hung: tally.hung)
    }

    func crash() async throws -> PartResult {
        var kills = 0
        var midTransfer = 0
        let tally = try await runSeeds(firstCrashSeed..<(firstCrashSeed + UInt64(crashTrials))) { seed in
            var settings = CrashSettings(seed: seed)
            settings.events = crashEvents
            return try await CrashProof.run(settings)
        } each: { outcome in
            kills += outcome.kills
            midTransfer += outcome.midTransferKills
        }
        var line =
            "crash: \(tally.passed) passed, \(tally.failures.count) failed (trials \(firstCrashSeed)…"
            + "\(firstCrashSeed + UInt64(crashTrials) - 1), \(crashEvents) events pushed and pulled each, "
            + "\(kills) kill -9s, \(midTransfer) mid-transfer, \(tally.seconds) s)"
        if let first = tally.failures.first {
            line += "\nreproduce: trendy-proof --parts crash --crash-trials 1 --first-crash-seed \(first.seed)"
        }
        return PartResult(
            line: line, summary: "crash \(tally.passed)/\(crashTrials) trials", failed: !tally.failures.isEmpty,
            hung: tally.hung)
    }

    func fuzz() async throws -> PartResult {
        let started = ContinuousClock.now
        let fixtures = try DecoderFuzz.fixtures(root: URL(fileURLWithPath: root))
        let decoders = DecoderFuzz.run(seed: fuzzSeed, iterations: fuzzIterations, fixtures: fixtures)
        for finding in decoders.findings.prefix(20) { print(finding) }
        let requests = try await RequestFuzz.run(seed: fuzzSeed, requests: fuzzRequests, fixtures: fixtures)
        for finding in requests.findings.prefix(20) { print(finding) }
        let imports = try await ImportFuzz.run(seed: fuzzSeed, files: fuzzImports)
        for finding in imports.findings.prefix(20) { print(finding) }
        let seconds = (ContinuousClock.now - started).components.seconds
        let answers = requests.answers.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(
            separator: ", ")
        let findings = decoders.findings.count + requests.findings.count + imports.findings.count
        var line =
            "fuzz: decoders \(decoders.executions) executions (\(fixtures.count) fixtures × \(fuzzIterations) "
            + "mutations), \(decoders.findings.count) findings; trendy-server \(requests.requests) mutated requests "
            + "(\(answers)), \(requests.findings.count) findings; trendyctl import \(imports.runs) mutated files "
            + "(\(imports.imported) imported, \(imports.refused) refused), \(imports.findings.count) findings; "
            + "seed \(fuzzSeed), \(seconds) s"
        if findings > 0 {
            line +=
                "\nreproduce: trendy-proof --parts fuzz --fuzz-seed \(fuzzSeed) --fuzz-iterations \(fuzzIterations) "
                + "--fuzz-requests \(fuzzRequests) --fuzz-imports \(fuzzImports)"
        }
        return PartResult(
            line: line,
            summary: "fuzz \(decoders.executions + requests.requests + imports.runs) executions, \(findings) findings",
            failed: findings > 0)
    }

    /// The gap-free change feed on PostgreSQL: `feedRounds` rounds of `ConcurrentFeedCheck` on two instances, each
    /// on a new schema of the database `scripts/with-postgres` started (docs/server.md).
    func feed() async throws -> PartResult {
        let started = ContinuousClock.now
        var passed = 0
        var changes = 0
        var firstFailure: String?
        for round in 1...max(1, feedRounds) {
            guard let storage = LiveTrendyServer.postgresTestStorage() else {
                let reason = LiveTrendyServer.postgresUnavailableReason
                return PartResult(
                    line: "feed: FAILED, no PostgreSQL (\(reason))", summary: "feed not run", failed: true)
            }
            let report = try await ConcurrentFeedCheck.run(storage: storage, instances: 2)
            changes += report.changes
            if report.findings.isEmpty {
                passed += 1
            } else if firstFailure == nil {
                firstFailure = "round \(round): " + report.findings.joined(separator: "; ")
            }
        }
        let rounds = max(1, feedRounds)
        let seconds = (ContinuousClock.now - started).components.seconds
        var line =
            "feed: \(passed) of \(rounds) rounds passed (2 instances on PostgreSQL, 8 writers, 3 readers; "
            + "\(changes) changes read back), \(seconds) s"
        if let firstFailure { line += "\n  first failure: \(firstFailure)" }
        return PartResult(line: line, summary: "feed \(passed)/\(rounds) rounds", failed: passed != rounds)
    }

    func schemathesis() async throws -> PartResult {
        let started = ContinuousClock.now
        let document = URL(fileURLWithPath: root).appendingPathComponent("docs/openapi.yaml").path
        let outcome = try await SchemathesisRun.run(
            document: document, seed: fuzzSeed, maxExamples: schemathesisExamples)
        if !outcome.passed || verbose { print(outcome.output) }
        let seconds = (ContinuousClock.now - started).components.seconds
        return PartResult(
            line: "schemathesis: \(outcome.passed ? "passed" : "FAILED"), \(outcome.generated) generated requests "
                + "(docs/openapi.yaml, \(schemathesisExamples) examples, seed \(fuzzSeed)), \(seconds) s",
            summary: "schemathesis \(outcome.generated) requests \(outcome.passed ? "passed" : "failed")",
            failed: !outcome.passed)
    }

    func libFuzzer() async throws -> PartResult {
        let artifacts = URL(fileURLWithPath: libfuzzerBinary).deletingLastPathComponent().appendingPathComponent(
            "fuzz-artifacts")
        let outcome = try await LibFuzzerRun.run(
            binary: libfuzzerBinary, fixtures: try DecoderFuzz.fixtures(root: URL(fileURLWithPath: root)),
            seconds: libfuzzerSeconds, seed: fuzzSeed, artifacts: artifacts.path)
        if !outcome.passed || verbose { print(outcome.output) }
        var line =
            "libfuzzer: \(outcome.executions) executions of trendy-fuzz in \(libfuzzerSeconds) s (seed \(fuzzSeed)), "
            + (outcome.crashInput.map { "FAILED: \($0)" } ?? "no crash, no broken rule")
        if let input = outcome.crashInput { line += "\nreproduce: swift run trendy-fuzz \(input)" }
        return PartResult(
            line: line, summary: "libfuzzer \(outcome.executions) executions", failed: !outcome.passed)
    }
}
