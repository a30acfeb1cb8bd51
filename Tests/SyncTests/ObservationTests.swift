import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Snapshots, waiting and dead letters")
struct ObservationTests {
    /// Where a state sits in a round: before, pushing, pulling, after.
    func phase(_ snapshot: SyncSnapshot) -> Int {
        switch snapshot.state {
        case .syncing: 1
        case .pulling: 2
        default: snapshot.isRunning ? 1 : 3
        }
    }

    @Test("S87 snapshots() yields the current snapshot first, then every change, in round order")
    func streamOrder() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        for offset in 0..<3 { try await h.event(type, Double(offset)) }
        let recorder = await SnapshotRecorder(h.engine)
        let report = await h.engine.performSync()
        let seen = await recorder.finish()

        let first = try #require(seen.first)
        #expect(first.pendingCount == 3 && !first.isRunning && first.state == .idle)
        // S87: snapshots() yields the current snapshot first and then every change; a bootstrapping round is…
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 }, "one element per change")
        let phases = seen.dropFirst().map(phase)
        #expect(phases == phases.sorted(), "running, syncing, pulling, then done: never backwards")
        #expect(phases.contains(1) && phases.contains(2))
        let last = try #require(seen.last)
        #expect(last.state == .idle && !last.isRunning && last.pendingCount == 0 && last.lastReport == report)
        #expect(seen.dropLast().allSatisfy { $0.lastReport != report }, "the report appears when the run ends")
    }

    @Test("pulledCount counts the rows a run receives, page by page, for progress displays; zero between runs")
    func pulledCountGrowsByPage() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        let b = try a.secondDevice(configuration: try SyncConfiguration(changeFeedPageSize: 3))
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: true))
        for offset in 0..<7 { try await a.event(type, Double(offset)) }
        _ = await a.engine.performSync()

        let recorder = await SnapshotRecorder(b.engine)
        let report = await b.engine.performSync()
        let counts = await recorder.finish().map(\.pulledCount)
        #expect(report.pulled == 7)
        #expect(counts.filter { $0 > 0 }.reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } } == [3, 6, 7])
        #expect(counts.last == 0 && counts.first == 0, "nothing is counted outside a run")
    }

    @Test("S87 a bootstrapping round is announced exactly once, after its completion commit")
    func bootstrapAnnouncedOnce() async throws {
        let a = try SyncHarness()
        _ = try await a.syncedType()
        let b = try a.secondDevice()
        let recorder = await SnapshotRecorder(b.engine)
        let gate = b.network.hold(.getEventsPage)
        let first = Task { await b.engine.performSync() }
        await gate.waitForArrivals(1)
        let joined = Task { await b.engine.performSync() }  // an extra, incremental round follows
        try await b.waitForJoiners(1)
        gate.release()
        _ = await first.value
        _ = await joined.value
        let seen = await recorder.finish()

        let announcements = zip([nil] + seen.map(\.lastReport), seen).filter { previous, snapshot in
            snapshot.lastReport != previous && snapshot.lastReport?.outcome.bootstrapped == true
        }
        #expect(announcements.count == 1)
        let announced = try #require(announcements.first?.1)
        // S87: snapshots() yields the current snapshot first and then every change; a bootstrapping round is…
        #expect(announced.cursor == a.model.latestCursor(user: a.network.userId), "published after the commit")
        #expect(announced.isRunning, "the extra round had not finished yet")
        #expect(seen.last?.lastReport?.outcome == .synced(bootstrapped: false))
    }

    @Test("S87 awaitSynced returns the current snapshot when already synced and never starts a sync")
    func awaitSyncedNow() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        h.network.resetCalls()
        let snapshot = await h.engine.awaitSynced(timeout: 5)
        #expect(snapshot?.pendingCount == 0 && snapshot?.state == .idle)
        #expect(h.network.totalCallCount == 0)
    }

    /// A device with a type created since its last sync, and a task waiting (`awaitSynced`) for the queue to empty.
    static func waitingForSync(
        timeout: TimeInterval
    ) async throws -> (SyncHarness, Task<SyncSnapshot?, Never>) {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        _ = try await h.events.createEventType(name: "Tea")
        let waiter = Task { await h.engine.awaitSynced(timeout: timeout) }
        await h.clock.waitForSleepers(1)
        return (h, waiter)
    }

    @Test("S87 awaitSynced returns once a sync empties the queue")
    func awaitSyncedAfterSync() async throws {
        let (h, waiter) = try await Self.waitingForSync(timeout: 60)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let snapshot = await waiter.value
        #expect(snapshot?.pendingCount == 0 && snapshot?.isRunning == false)
    }

    @Test("S87 awaitSynced gives up with nil when the timeout passes on the injected clock")
    func awaitSyncedTimesOut() async throws {
        let (h, waiter) = try await Self.waitingForSync(timeout: 30)
        h.clock.advance(by: 30)
        #expect(await waiter.value == nil)
        #expect(try h.queue().count == 1)
    }

    @Test("S88 dead letters are never counted as pending; retry makes them live with attempts 0 and a new key")
    func retryDeadLetters() async throws {
        let h = try SyncHarness(configuration: try SyncConfiguration(maxAttempts: 1))
        let type = try await h.syncedType()
        _ = try await h.events.updateEventType(id: type.id) { $0.icon = "x" }
        h.network.enqueue(http(400, message: "bad icon"), for: .updateEventTypeWithIdempotency)
        #expect(await h.engine.performSync().outcome == .partial(bootstrapped: false))
        let dead = try #require(try h.queue().first)
        #expect(dead.isDeadLetter && dead.lastError?.contains("bad icon") == true)
        var snapshot = await h.engine.snapshot
        #expect(snapshot.pendingCount == 0 && snapshot.deadLetterCount == 1)
        #expect(try await h.engine.mutations(state: .failed).map(\.id) == [dead.id])
        // S88: Dead letters are never pushed and never counted as pending; retryDeadLetters makes them live with…
        #expect(try h.events.eventType(id: type.id)?.syncStatus == .failed, "S3 a dead letter marks the entity failed")

        #expect(try await h.engine.retryDeadLetters() == 1)
        let revived = try #require(try h.queue().first)
        #expect(revived.isLive && revived.attempts == 0 && revived.clientRequestId != dead.clientRequestId)
        snapshot = await h.engine.snapshot
        #expect(snapshot.pendingCount == 1 && snapshot.deadLetterCount == 0)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(h.network.calls(of: .updateEventTypeWithIdempotency).last?.idempotencyKey == revived.clientRequestId)
    }

    @Test("S88 discardMutations removes the rows and marks their entities failed")
    func discard() async throws {
        let h = try SyncHarness(configuration: try SyncConfiguration(maxAttempts: 1))
        let type = try await h.syncedType()
        let event = try await h.event(type, 1)
        h.network.enqueue(http(500), for: .createEventsBatchWithIdempotency)
        _ = await h.engine.performSync()
        let dead = try #require(try h.mutations(of: event.id).first)
        #expect(dead.isDeadLetter)
        #expect(try await h.engine.discardMutations(ids: [dead.id]) == 1)
        #expect(try h.queue().isEmpty)
        #expect(try h.events.event(id: event.id)?.syncStatus == .failed)
        let snapshot = await h.engine.snapshot
        #expect(snapshot.pendingCount == 0 && snapshot.deadLetterCount == 0)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        // S88: Dead letters are never pushed and never counted as pending; retryDeadLetters makes them live with…
        #expect(h.network.callCount(.createEventsBatchWithIdempotency) == 1, "a discarded mutation is never sent")
    }
}
