import ArgumentParser
import Foundation
import Models
import Sync

struct SyncCommand: TrendyCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Push local changes and pull everyone else's.",
        discussion: """
            Exit status: 0 synced, 5 partial (some changes failed; see `trendyctl queue list`), 75 offline or \
            rate limited (nothing was lost; try again later), 4 not logged in or token rejected, 1 other \
            errors, 130 interrupted (143 on SIGTERM). Only one sync runs per database at a time: a second one waits up \
            to 2 s for the first, then exits 75; `--watch` waits as long as it takes and goes on.

            --watch runs until interrupted in live mode: it holds the server's change stream, applies each change \
            as it arrives and pushes local changes (also those other trendyctl processes make) within \
            milliseconds. Where the server has no stream, or with --poll, it syncs every --interval seconds instead. \
            With --json it prints one JSON object a line: each sync's summary, and \
            {"event": "applied", "changes": n, "cursor": n, "latency_ms": n} for each burst of changes applied.

            --verify then compares this database with the server's digest and reads back whatever differs: 0 \
            verified, 6 a difference it could not repair (the entities are printed), 5 blocked by changes not yet \
            synced or failed, 75 the account kept changing, 1 the server cannot verify.

            Examples:
              trendyctl sync
              trendyctl sync --full      # download everything again; keeps pending changes
              trendyctl sync --verify    # prove this copy equals the server's; repair what differs
              trendyctl sync --watch     # live: other devices' changes appear as they are made
              trendyctl sync --watch --poll --interval 300
              trendyctl sync --json | jq .outcome
            """)
    @OptionGroup var globals: GlobalOptions
    @Flag(help: "Bootstrap from the server's full state (local changes not yet pushed are kept).") var full = false
    @Flag(help: "Then prove this database equals the server's data, reading back what differs.") var verify = false
    @Flag(help: "Stay live until interrupted: apply the server's changes as they happen, push local ones at once.")
    var watch = false
    @Flag(help: "With --watch: sync every --interval seconds instead of holding the server's change stream.")
    var poll = false
    @Option(
        parsing: .unconditional, help: "Seconds between syncs when polling (default: config sync.interval, else 60).")
    var interval: Int?

    func validate() throws {
        if interval != nil && !watch { throw ValidationError("--interval goes with --watch") }
        if poll && !watch { throw ValidationError("--poll goes with --watch") }
        if let interval, interval < 1 { throw ValidationError("--interval must be 1 second or more") }
        if verify && watch { throw ValidationError("--verify checks once; run it without --watch") }
    }

    func run(_ context: CommandContext) async throws {
        _ = try context.settings.requireLogin()
        let pollInterval = Double(interval ?? context.settings.watchInterval)
        let container = try context.container(livePollInterval: pollInterval)
        let engine = container.engine
        var context = context
        context.deviceWasRevoked = { container.deviceWasRevoked() }
        try await engine.loadInitialState()
        let interrupt = await Interrupt()
        if watch && !poll {
            let code = await Self.watchLive(engine, pollInterval: pollInterval, interrupt: interrupt, context)
            if code != 0 { throw ExitCode(code) }
            return
        }
        var forceFull = full
        var exitCode: Int32 = 0
        var pause = PauseNotes()
        repeat {
            let report: SyncReport
            do {
                let path = context.settings.databasePath
                let console = context.console
                let locked = await interrupt.run { [watch] () async -> Result<SyncLock, CLIError> in
                    do throws(CLIError) {
                        return .success(
                            try await SyncLock.acquire(
                                databasePath: path, waitingAtMost: watch ? nil : SyncLock.oneOffWait,
                                waiting: { console.note("another sync is running on this database; waiting for it") }))
                    } catch {
                        return .failure(error)
                    }
                }
                if interrupt.fired { break }
                let lock = try locked.get()
                let full = forceFull
                if verify {
                    let verification = await interrupt.run { () async -> VerifyReport in
                        if full { _ = await Self.runOnce(engine, full: true, console: console) }
                        return await engine.verify()
                    }
                    withExtendedLifetime(lock) {}
                    exitCode = Self.render(verification, interruptExitCode: interrupt.exitCode, context)
                    break
                }
                report = await interrupt.run { await Self.runOnce(engine, full: full, console: console) }
                withExtendedLifetime(lock) {}
            }
            forceFull = false
            pause.note(report, context.console)
            exitCode = Self.render(report, interruptExitCode: interrupt.exitCode, context)
            // Once, for a one-off sync: a watch would repeat them every round (`status` and `queue list` keep them).
            if case .partial = report.outcome, !watch, !context.console.json {
                await Self.explainFailures(engine, context.console)
            }
            guard watch && !interrupt.fired else { break }
            let snapshot = await engine.snapshot
            let wait = max(Double(interval ?? context.settings.watchInterval), snapshot.retryAfterSeconds)
            context.console.note("next sync in \(Int(wait.rounded(.up))) s (Ctrl-C to stop)")
            await interrupt.run { try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) }
        } while !interrupt.fired
        // trendyctl §1.5: a signal ends the command with 128+N, also when it lands between two runs of a watch.
        if interrupt.fired { exitCode = interrupt.exitCode ?? 130 }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    /// `--watch` in live mode (sync-engine R12): the engine streams; this prints what it does until a signal, or
    /// until the server refuses the token (exit 4). Each round takes the sync lock and releases it after.
    private static func watchLive(
        _ engine: SyncEngine, pollInterval: Double, interrupt: Interrupt, _ context: CommandContext
    ) async -> Int32 {
        let console = context.console
        let path = context.settings.databasePath
        let activity = await engine.liveActivity()
        await engine.startLive(roundGate: {
            try? await SyncLock.acquire(
                databasePath: path, waitingAtMost: nil,
                waiting: { console.note("another sync is running on this database; waiting for it") })
        })
        console.note("watching live (Ctrl-C to stop)")
        let ended = await interrupt.run { () async -> Int32? in
            var pause = PauseNotes()
            for await event in activity {
                switch event {
                case .round(let report):
                    pause.note(report, console)
                    Self.renderLiveRound(report, console)
                case .applied(let changes, let cursor, let latency):
                    if console.json {
                        var line: [String: JSONValue] = [
                            "event": "applied", "changes": .number(Double(changes)), "cursor": .number(Double(cursor)),
                        ]
                        line["latency_ms"] = latency.map { .number(Double($0)) } ?? .null
                        console.out(json: .object(line))
                    } else {
                        let after = latency.map { ", \($0) ms after they were made" } ?? ""
                        console.summary(
                            "applied \(changes) change\(changes == 1 ? "" : "s") (cursor \(cursor)\(after))")
                    }
                case .polling(let reason):
                    Self.renderFallback(reason, pollInterval: pollInterval, console)
                case .streaming:
                    if console.json {
                        console.out(json: ["event": "streaming"])
                    } else {
                        console.note("live again: the change stream is open")
                    }
                case .ended(let outcome):
                    console.error(
                        CLIError(code: outcome.name, message: authAdvice(context), exitCode: outcome.exitCode))
                    return outcome.exitCode
                }
            }
            return nil
        }
        await engine.stopLive()
        if interrupt.fired { return interrupt.exitCode ?? 130 }
        return ended ?? 0
    }

    /// What a person does when the server refused the credentials: the token, or this device (api-v1 §16).
    private static func authAdvice(_ context: CommandContext) -> String {
        context.deviceWasRevoked()
            ? "this device's access was revoked (`trendyctl devices revoke` on another device); nothing local was "
                + "lost: sign in again as a new device with `trendyctl login --with-token < token.txt`"
            : "the server rejected the token: run `trendyctl login --with-token < token.txt`"
    }

    /// The fallback of live mode to polling (sync-engine R12), said once when it begins: a JSON line, or a note.
    private static func renderFallback(_ reason: LivePollReason, pollInterval: Double, _ console: Console) {
        let every = Int(pollInterval.rounded(.up))
        switch reason {
        case .noStream:
            if console.json {
                console.out(json: ["event": "polling", "reason": "no_stream", "interval": .number(Double(every))])
            } else {
                console.note("the server has no change stream: polling, a sync every \(every) s")
            }
        case .streamLimit(let retryAfter):
            let seconds = Int(retryAfter.rounded(.up))
            if console.json {
                console.out(
                    json: ["event": "polling", "reason": "stream_limit", "retry_after": .number(Double(seconds))])
            } else {
                console.note(
                    "the server holds as many change streams of this account as it allows: polling; "
                        + "trying the stream again in \(seconds) s")
            }
        }
    }

    /// A live round: every one as a JSON line; as a human line only when it did something or did not sync.
    private static func renderLiveRound(_ report: SyncReport, _ console: Console) {
        if console.json {
            console.out(json: .object(syncFields(report, outcome: report.outcome.name)))
        } else if report.pushed > 0 || report.pulled > 0 || report.outcome != .synced(bootstrapped: false) {
            console.summary(summaryLine(report, outcome: report.outcome.name))
        }
    }

    /// One run, with a progress line on stderr fed by the snapshot stream when stderr is a terminal.
    private static func runOnce(_ engine: SyncEngine, full: Bool, console: Console) async -> SyncReport {
        let progress: Task<Void, Never>? =
            console.showsProgress
            ? Task {
                var pullStarted: ContinuousClock.Instant?
                for await snapshot in await engine.snapshots() {
                    if Task.isCancelled { break }
                    let now = ContinuousClock.now
                    if snapshot.pulledCount > 0, pullStarted == nil { pullStarted = now }
                    let seconds = pullStarted.map { (now - $0) / .seconds(1) } ?? 0
                    console.progress("\r\u{1B}[2K" + Self.progressLine(snapshot, pullingFor: seconds))
                }
            } : nil
        let report = full ? await engine.forceFullResync() : await engine.performSync()
        progress?.cancel()
        if progress != nil { console.progress("\r\u{1B}[2K") }
        return report
    }

    /// The progress line for `snapshot`; `seconds` since the first pulled row, for the rate.
    static func progressLine(_ snapshot: SyncSnapshot, pullingFor seconds: Double) -> String {
        switch snapshot.state {
        case .syncing(let done, let total) where total > 0:
            let width = 24
            let filled = Int((Double(done) / Double(total) * Double(width)).rounded(.down))
            return "pushing \(done)/\(total) [" + String(repeating: "#", count: filled)
                + String(repeating: ".", count: width - filled) + "]"
        case .syncing: return "checking the server…"
        case .pulling where snapshot.pulledCount > 0:
            let rows = snapshot.pulledCount
            // A rate over less than half a second says little: shown once there is some history.
            guard seconds >= 0.5 else { return "pulling: \(rows) rows" }
            let rate = Int((Double(snapshot.pulledCount) / seconds).rounded())
            return "pulling: \(rows) rows, \(rate) rows/s"
        case .pulling: return "pulling…"
        default: return snapshot.state.name
        }
    }

    /// Prints a verification (sync-engine R10, trendyctl §1.4) and returns its exit code.
    private static func render(
        _ verification: VerifyReport, interruptExitCode: Int32?, _ context: CommandContext
    ) -> Int32 {
        let console = context.console
        guard verification.result != .notCompared else {
            var fields: [String: JSONValue] = ["verified": false, "repaired": 0]
            return render(verification.sync, interruptExitCode: interruptExitCode, context, extra: &fields)
        }
        var fields: [String: JSONValue] = [
            "verified": .bool(verification.verified), "repaired": .number(Double(verification.repaired)),
        ]
        var report = verification.sync
        let advice: String
        switch verification.result {
        case .verified(let repaired):
            advice = ""
            report.message = repaired == 0 ? "verified" : "verified after reading back \(repaired)"
        case .diverged(let differing, _):
            fields["differing"] = .array(differing.map(JSONValue.string))
            advice =
                "still different after reading back: \(differing.joined(separator: ", ")); "
                + "`trendyctl sync --full` downloads everything again"
        case .busy:
            fields["reason"] = "busy"
            advice = "the account kept changing during the check; try again"
        case .unsupported:
            fields["reason"] = "unsupported"
            advice = "the server has no sync digest (it is not trendy-server, or an older one)"
        case .blocked(let blockers):
            fields["blocked_by"] = .array(
                blockers.map {
                    [
                        "entity_type": .string($0.entityType.rawValue), "id": .string($0.id),
                        "reason": .string($0.reason.rawValue),
                    ]
                })
            advice =
                "\(blockers.count) entities have changes not synced yet or failed; `trendyctl queue list` shows them"
        case .notCompared: advice = ""
        }
        let diverged: Bool
        if case .diverged = verification.result { diverged = true } else { diverged = false }
        if console.json {
            let outcome = diverged ? "diverged" : report.outcome.name
            console.out(json: .object(syncFields(report, outcome: outcome).merging(fields) { _, new in new }))
        } else {
            console.summary(
                summaryLine(report, outcome: diverged ? "diverged" : report.outcome.name) + "; "
                    + (report.message ?? ""))
        }
        let code = verification.exitCode
        if code != 0 {
            console.error(
                CLIError(
                    code: diverged ? "diverged" : (fields["reason"]?.stringValue ?? "blocked"), message: advice,
                    exitCode: code))
        }
        return code
    }

    /// The JSON of a run (trendyctl §1.4).
    private static func syncFields(_ report: SyncReport, outcome: String) -> [String: JSONValue] {
        [
            "outcome": .string(outcome), "pushed": .number(Double(report.pushed)),
            "pulled": .number(Double(report.pulled)), "failed": .number(Double(report.failed)),
            "pending": .number(Double(report.pending)), "cursor": .number(Double(report.cursor)),
            "bootstrapped": .bool(report.outcome.bootstrapped), "duration_ms": .number(Double(report.durationMs)),
            "message": report.message.map(JSONValue.string) ?? .null,
            "given_back": .number(Double(report.counts.givenBack)),
        ]
    }

    /// The human line of a run.
    private static func summaryLine(_ report: SyncReport, outcome: String) -> String {
        var line = "\(outcome): pushed \(report.pushed), pulled \(report.pulled)"
        if report.failed > 0 { line += ", \(report.failed) failed" }
        if report.pending > 0 { line += ", \(report.pending) pending" }
        if report.owed > 0 { line += ", \(report.owed) to read back" }
        line += report.outcome.bootstrapped ? " (full download)" : ""
        line += " in \(report.durationMs) ms"
        // R15: after the server went back to a backup, what this device held went back to it.
        if report.counts.givenBack > 0 { line += "; gave back \(report.counts.givenBack) changes the server had lost" }
        return line
    }

    /// After a sync that left changes failed: each one with its reason, whole, and for a type refused because the
    /// server holds its name the command that merges it there — without a trip to `queue list --wide`.
    private static func explainFailures(_ engine: SyncEngine, _ console: Console) async {
        guard let failed = try? await engine.mutations(state: .failed), !failed.isEmpty else { return }
        let shown = 5
        for change in failed.prefix(shown) {
            console.note(
                "failed: \(change.operation.rawValue) of \(change.entityType.rawValue) \(change.entityId): "
                    + (change.lastError ?? "refused"))
            if change.entityType == .eventType, change.operation == .create, let holder = change.heldOnServerBy {
                console.note(
                    "  to move its events into the server's type and drop this one: "
                        + "trendyctl types merge \(change.entityId) \(holder)")
            }
        }
        if failed.count > shown { console.note("and \(failed.count - shown) more: `trendyctl queue list --wide`") }
    }

    private static func render(_ report: SyncReport, interruptExitCode: Int32?, _ context: CommandContext) -> Int32 {
        var none: [String: JSONValue] = [:]
        return render(report, interruptExitCode: interruptExitCode, context, extra: &none)
    }

    /// Prints the report and returns its exit code: 128 + the signal's number when a signal cancelled the run.
    private static func render(
        _ report: SyncReport, interruptExitCode: Int32?, _ context: CommandContext, extra: inout [String: JSONValue]
    ) -> Int32 {
        let outcome = report.outcome
        let cancelled = interruptExitCode != nil && outcome.name == "error"
        let code: Int32 = cancelled ? (interruptExitCode ?? 130) : outcome.exitCode
        let console = context.console
        if console.json {
            console.out(json: .object(syncFields(report, outcome: outcome.name).merging(extra) { _, new in new }))
        } else {
            console.summary(summaryLine(report, outcome: outcome.name))
        }
        if code != 0 {
            let advice: String
            switch outcome {
            case .partial: advice = "some changes failed; `trendyctl queue list` shows why"
            case .offline(let message):
                // A wrong address looks the same as a server that is down (a 404, a captive portal's page): name it.
                let server = context.settings.server.map { " at \($0.root) (from \($0.source))" } ?? ""
                advice =
                    "the server\(server) is unreachable (\(message)); nothing was lost: try again later, "
                    + "or check the address"
            case .rateLimited(let seconds): advice = "rate limited; try again in \(Int(seconds.rounded(.up))) s"
            case .authRequired: advice = authAdvice(context)
            case .error(let message): advice = cancelled ? "interrupted; nothing was half-applied" : message
            case .synced: advice = ""
            }
            console.error(CLIError(code: cancelled ? "interrupted" : outcome.name, message: advice, exitCode: code))
        }
        return code
    }
}

/// No silent waits: when the server rate-limits the device (or its breaker opens), `--watch` says so and
/// for how long, and says again when syncing goes on.
struct PauseNotes {
    private var paused = false

    mutating func note(_ report: SyncReport, _ console: Console) {
        if case .rateLimited(let retryAfter) = report.outcome {
            if !paused {
                console.note("rate limited by the server: syncing pauses for \(Int(retryAfter.rounded(.up))) s")
            }
            paused = true
        } else if paused {
            paused = false
            console.note("the rate-limit pause is over; syncing again")
        }
    }
}
