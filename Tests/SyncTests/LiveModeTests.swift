import Foundation
import Models
import Protocols
import Sync
import Synchronization
import TestSupport
import Testing

/// Live mode (sync-engine R12) on the mocks: the model's stream delivers as it commits; waits are on the manual
/// clock, advanced by the test; states another task reaches are awaited with a bound.
@Suite("Live mode (R12)")
struct LiveModeTests {
    static func configuration() -> SyncConfiguration {
        SyncConfiguration.standard()
    }

    /// Two devices of one user; the first synced once, so it streams from a cursor.
    static func devices() async throws -> (a: SyncHarness, b: SyncHarness) {
        let a = try SyncHarness(configuration: configuration())
        let b = try a.secondDevice(configuration: configuration())
        _ = try await b.syncedType("Seed")
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: true))
        return (a, b)
    }

    /// Records what live mode reports.
    final class Activity: Sendable {
        private let log = Mutex<[LiveActivity]>([])
        private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

        init(_ engine: SyncEngine) async {
            let stream = await engine.liveActivity()
            let consumer = Task { [weak self] in
                for await activity in stream { self?.log.withLock { $0.append(activity) } }
            }
            task.withLock { $0 = consumer }
        }

        var all: [LiveActivity] { log.withLock { $0 } }

        /// Entries the stream applied and entries rounds pulled, since recording began.
        var received: Int {
            all.reduce(0) { total, activity in
                switch activity {
                case .applied(let changes, _, _): total + changes
                case .round(let report): total + report.pulled
                case .ended, .polling, .streaming: total
                }
            }
        }

        deinit { task.withLock { $0 }?.cancel() }
    }

    static func localTypes(_ harness: SyncHarness) throws -> Set<String> {
        try harness.read { Set(try $0.fetchAllEventTypes().map(\.name)) }
    }

    @Test("R12 another device's writes are applied as the stream brings them, cursor with them, each once")
    func appliesTheStream() async throws {
        let (a, b) = try await Self.devices()
        let activity = await Activity(a.engine)
        await a.engine.startLive()
        try await waitUntil("streaming") { await a.engine.snapshot.live == .streaming }
        for name in ["Tea", "Water", "Juice"] { _ = try await b.syncedType(name) }
        try await waitUntil("three types applied") { try Self.localTypes(a).isSuperset(of: ["Tea", "Juice"]) }
        let latest = a.serverChanges.last?.id ?? 0
        try await waitUntil("cursor at the server's latest") { try a.engineState().cursor == latest }
        try await waitUntil("three entries reported") { activity.received >= 3 }
        #expect(activity.received == 3, "\(activity.all)")
        #expect(await a.engine.snapshot.isRunning == false, "live mode is not a run")
        await a.engine.stopLive()
        #expect(await a.engine.snapshot.live == .off)
    }

    @Test("R12 a local write is pushed without a sync call")
    func pushesLocalWrites() async throws {
        let (a, _) = try await Self.devices()
        await a.engine.startLive()
        try await waitUntil("streaming") { await a.engine.snapshot.live == .streaming }
        let type = try await a.events.createEventType(name: "Coffee")
        try await waitUntil("the type on the server") { a.serverEventTypes.contains { $0.id == type.id } }
        try await waitUntil("the queue empty") { try a.queue().isEmpty }
        await a.engine.stopLive()
    }

    @Test("R12 a dropped stream reconnects after the backoff from the cursor; nothing is lost or applied twice")
    func reconnectsAfterADrop() async throws {
        let (a, b) = try await Self.devices()
        let activity = await Activity(a.engine)
        await a.engine.startLive()
        try await waitUntil("streaming") { await a.engine.snapshot.live == .streaming }
        _ = try await b.syncedType("Before")
        try await waitUntil("first type") { try Self.localTypes(a).contains("Before") }
        a.model.closeStreams(throwing: .transport("the connection was lost"))
        try await waitUntil("waiting to reconnect") { await a.engine.snapshot.live == .waiting }
        // Written while a's stream is down: the round before the reconnect pulls them.
        _ = try await b.syncedType("During")
        await a.clock.waitForSleepers(1)
        a.clock.advance(by: 60)
        try await waitUntil("streaming again") { await a.engine.snapshot.live == .streaming }
        _ = try await b.syncedType("After")
        try await waitUntil("all types") { try Self.localTypes(a).isSuperset(of: ["Before", "During", "After"]) }
        try await waitUntil("three entries reported") { activity.received >= 3 }
        #expect(activity.received == 3, "each entry once: \(activity.all)")
        #expect(a.network.callCount(.changeStream) == 2)
        await a.engine.stopLive()
    }

    @Test("R12 without the stream feature live mode polls every interval, and a local write starts a round")
    func pollsWithoutAStream() async throws {
        let (a, b) = try await Self.devices()
        a.network.announce(ServerFeatures([ServerFeatures.after, ServerFeatures.digest]))
        await a.engine.startLive()
        try await waitUntil("polling") { await a.engine.snapshot.live == .polling }
        _ = try await b.syncedType("Polled")
        await a.clock.waitForSleepers(1)
        a.clock.advance(by: 60)
        try await waitUntil("polled type") { try Self.localTypes(a).contains("Polled") }
        let type = try await a.events.createEventType(name: "Written")
        try await waitUntil("pushed without waiting for the interval") {
            a.serverEventTypes.contains { $0.id == type.id }
        }
        #expect(a.network.callCount(.changeStream) == 0)
        await a.engine.stopLive()
    }

    @Test("R12 a 401 on the stream ends live mode with authRequired")
    func unauthorizedEnds() async throws {
        let (a, _) = try await Self.devices()
        let activity = await Activity(a.engine)
        a.network.enqueue(http(401, "unauthorized"), for: .changeStream)
        await a.engine.startLive()
        try await waitUntil("ended") { activity.all.contains(.ended(.authRequired)) }
        try await waitUntil("off") { await a.engine.snapshot.live == .off }
    }

    @Test("R12 a reset bootstraps, then the stream reopens from the new cursor")
    func resetBootstraps() async throws {
        let (a, _) = try await Self.devices()
        a.network.enqueueStream([.opened, .reset(reason: "cursor_expired")])
        await a.engine.startLive()
        try await waitUntil("second stream open", lastSeen: await a.stateDescription()) {
            let live = await a.engine.snapshot.live
            return a.network.callCount(.changeStream) == 2 && live == .streaming
        }
        #expect(try a.history().first?.kind == .bootstrap)
        #expect(try a.engineState().bootstrapRequested == false)
        await a.engine.stopLive()
    }

    @Test("R12 429 stream_limit: no quiet period; live mode polls until Retry-After, then streams")
    func streamLimitPolls() async throws {
        let (a, _) = try await Self.devices()
        a.network.enqueue(http(429, "stream_limit", retryAfter: 30), for: .changeStream)
        await a.engine.startLive()
        try await waitUntil("polling", lastSeen: await a.stateDescription()) {
            await a.engine.snapshot.live == .polling
        }
        #expect(try a.engineState().quietUntil == nil)
        await a.clock.waitForSleepers(1)
        a.clock.advance(by: 30)
        try await waitUntil("streaming") { await a.engine.snapshot.live == .streaming }
        await a.engine.stopLive()
    }
}

extension LiveModeTests {
    @Test("R12 another process's bootstrap moves the cursor back under the stream: it reconnects from there")
    func rewoundCursorReconnects() async throws {
        let (a, b) = try await Self.devices()
        let start = try a.engineState().cursor
        await a.engine.startLive()
        try await waitUntil("streaming") { await a.engine.snapshot.live == .streaming }
        let tea = try await b.syncedType("Tea")
        try await waitUntil("Tea applied") { try Self.localTypes(a).contains("Tea") }
        // What a bootstrap in another process leaves when its snapshot predates Tea: no Tea, the older cursor, and
        // the time it succeeded.
        try a.updateEngineState {
            $0.cursor = start
            $0.lastSuccessAt = a.clock.now().addingTimeInterval(1)
        }
        let store = a.stores.makeDataStore()
        try store.deleteEventType(id: tea.id)
        try store.save()
        try await waitUntil("the stream reopened from the older cursor") {
            a.network.callCount(.changeStream) == 2
        }
        try await waitUntil("Tea applied again") { try Self.localTypes(a).contains("Tea") }
        #expect(try a.engineState().cursor == a.serverChanges.last?.id)
        await a.engine.stopLive()
    }
}

extension LiveModeTests {
    @Test("R12 the breaker holds only pushes: the stream opens while it is open, the push goes when it ends")
    func breakerHoldsOnlyPushes() async throws {
        let (a, b) = try await Self.devices()
        let until = a.clock.now().addingTimeInterval(100)
        try a.updateEngineState { $0.breakerBackoffUntil = until }
        let held = try await a.events.createEventType(name: "Held")
        await a.engine.startLive()
        try await waitUntil("streaming while the breaker is open", lastSeen: await a.stateDescription()) {
            await a.engine.snapshot.live == .streaming
        }
        #expect(!a.serverEventTypes.contains { $0.id == held.id }, "the breaker holds the push")
        _ = try await b.syncedType("Streamed")
        try await waitUntil("another device's write applied meanwhile") {
            try Self.localTypes(a).contains("Streamed")
        }
        await a.clock.waitForSleepers(1)
        a.clock.advance(by: 100)
        try await waitUntil("pushed once the breaker ended", lastSeen: await a.stateDescription()) {
            a.serverEventTypes.contains { $0.id == held.id }
        }
        await a.engine.stopLive()
    }

    @Test(
        "R12 R15 a stream entry of an entity owed a give-back is not written over it: the version goes back in the next round"
    )
    func streamKeepsAVersionOwedBack() async throws {
        let (a, b) = try await Self.devices()
        let tea = try await a.syncedType("Tea")
        _ = await b.engine.performSync()
        await a.engine.startLive()
        try await waitUntil("streaming", lastSeen: await a.stateDescription()) {
            await a.engine.snapshot.live == .streaming
        }
        // A version the server lost whose give-back failed (the catch-up pull's or a push answer's, R15): held
        // acknowledged, owed back, and the link to the give-back down.
        a.network.setStickyError(.transport("connection lost"), for: .giveBack)
        a.clock.advance(by: 10)
        let store = a.stores.makeDataStore()
        _ = try store.upsertEventType(id: tea.id) { $0.color = "#AA0000" }
        try store.recordAcknowledged([
            AcknowledgedVersion(entityType: .eventType, id: tea.id, acknowledgedAt: a.clock.now(), deleted: false)
        ])
        try store.markOwed(.eventType, id: tea.id, reason: .giveBack)
        try store.save()
        // Another device's edit of another field reaches a through the stream, carrying the server's color.
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: tea.id) { $0.icon = "leaf" }
        _ = await b.engine.performSync()
        let latest = try #require(a.serverChanges.last?.id)
        try await waitUntil("the stream applied up to b's entry", lastSeen: await a.stateDescription()) {
            try a.engineState().cursor >= latest
        }
        #expect(try a.events.eventType(id: tea.id)?.color == "#AA0000", "the entry was not written over the row")
        #expect(try a.owed().map(\.reason) == [.giveBack])
        a.network.setStickyError(nil, for: .giveBack)
        await a.engine.stopLive()
        _ = await a.engine.performSync()
        let server = try #require(a.serverEventTypes.first { $0.id == tea.id })
        #expect(server.fields.color == "#AA0000" && server.fields.icon == "leaf", "given back, b's edit kept")
        #expect(try a.events.eventType(id: tea.id)?.color == "#AA0000" && a.owed().isEmpty)
    }
}
