import Foundation
import Hashing
import Models
import Protocols
import Sync
import TestSupport
import Testing

@Suite("Incremental pull")
struct PullTests {
    func page(_ changes: [ChangeEntry] = [], next: Int64, more: Bool = false) -> ChangeFeedResponse {
        ChangeFeedResponse(changes: changes, nextCursor: next, hasMore: more)
    }

    func entry(
        _ id: Int64, _ type: String, _ operation: String = "update", entity: String, data: JSONValue?,
        user: String = MockNetworkClient.defaultUserId
    ) -> ChangeEntry {
        ChangeEntry(id: id, entityType: type, operation: operation, entityId: entity, userId: user, data: data)
    }

    @Test("S67 pages follow has_more, each request using the cursor stored by the previous page")
    func cursorChain() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        let start = try h.engineState().cursor
        for (next, more) in [(Int64(1000), true), (2000, true), (3000, true), (4000, false)] {
            h.network.enqueue(page(next: next, more: more), for: .getChanges)
        }
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let requests = h.network.calls(of: .getChanges).map(\.arguments)
        #expect(requests.map { $0["since"] } == ["\(start)", "1000", "2000", "3000"])
        // S67: The pull requests since = cursor, limit = changeFeedPageSize, and continues while has_more, each…
        #expect(requests.allSatisfy { $0["limit"] == "100" })
        #expect(try h.engineState().cursor == 4000, "S68 empty pages with a larger next_cursor still advance it")
    }

    @Test("S68 the cursor never moves back: a smaller next_cursor leaves it where it was")
    func cursorNeverMovesBack() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        try h.updateEngineState { $0.cursor = 5000 }
        h.network.enqueue(page(next: 10), for: .getChanges)
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        // S68: A page's entries and the cursor advance commit in one transaction; the cursor only moves to a larger…
        #expect(try h.engineState().cursor == 5000)
    }

    @Test(
        "S68 S69 a store failure in a page rolls the whole page back, keeps the cursor, ends error; the next round applies it"
    )
    func pageIsAtomic() async throws {
        let (a, b, _) = try await twoDevices()
        for name in ["Tea", "Water", "Juice"] { _ = try await b.events.createEventType(name: name) }
        _ = await b.engine.performSync()
        let cursor = try a.engineState().cursor
        a.store.injectFault(.upsertEventType, onCall: 3)

        let report = await a.engine.performSync()
        #expect(report.outcome.name == "error")
        #expect(try a.events.eventTypes().map(\.name) == ["Coffee"], "the first two entries were rolled back too")
        #expect(try a.engineState().cursor == cursor)

        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        // S69: A store failure while applying a page rolls the page back, keeps the cursor, and ends the round error.
        #expect(try Set(a.events.eventTypes().map(\.name)) == ["Coffee", "Tea", "Water", "Juice"])
        // S68: A page's entries and the cursor advance commit in one transaction; the cursor only moves to a larger…
        #expect(try a.engineState().cursor == a.model.latestCursor(user: a.network.userId))
    }

    @Test("S70 has_more with a next_cursor that does not advance ends the round error, applies nothing, asks once")
    func stuckFeed() async throws {
        let h = try SyncHarness()
        _ = try await h.syncedType()
        let cursor = try h.engineState().cursor
        let stray = Build.id(77)
        h.network.enqueue(
            page(
                [entry(cursor + 1, "event_type", "create", entity: stray, data: ["name": "Stray", "user_id": "u"])],
                next: cursor, more: true),
            for: .getChanges)
        h.network.resetCalls()
        let report = await h.engine.performSync()
        #expect(report.outcome == .error("change feed did not advance"))
        #expect(h.network.callCount(.getChanges) == 1)
        // S70: has_more with next_cursor ≤ since ends the round error without applying the page.
        #expect(try h.events.eventType(id: stray) == nil && h.engineState().cursor == cursor)
    }

    @Test("S71 a 410 from /changes makes the same round bootstrap")
    func goneMeansBootstrap() async throws {
        let (a, b, _) = try await twoDevices()
        _ = try await b.events.createEventType(name: "Tea")
        _ = await b.engine.performSync()
        a.network.enqueue(http(410, "cursor_expired"), for: .getChanges)
        a.network.resetCalls()
        let report = await a.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: true))
        #expect(a.network.callCount(.getLatestCursor) == 1, "before the snapshot; a keyset listing is complete (R11)")
        #expect(a.network.callCount(.getEventsPage) == 1)
        #expect(try a.history().first?.kind == .bootstrap)
        #expect(try Set(a.events.eventTypes().map(\.name)) == ["Coffee", "Tea"])
        // S71: A 410 from /changes makes the same round run a bootstrap.
        #expect(try !a.engineState().bootstrapRequested)
    }

    @Test(
        "api-v1 §6.5 R15 a restored server's new rows took the devices' cursors: the time sent with each cursor tells; they give back, then bootstrap"
    )
    func restoredHistoryWrittenAgain() async throws {
        let (a, b, _) = try await twoDevices()
        let backup = a.model.backUp()
        _ = try await a.events.createEventType(name: "Lost")
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        #expect(try b.events.eventTypes().map(\.name).sorted() == ["Coffee", "Lost"])
        a.clock.advance(by: 60)
        a.model.restore(backup)

        // b's new type takes the id of the change both cursors name, written a minute later. b's round meets the
        // new history with it, and gives back the type the server lost (R15); its push, made from a position the
        // server lost, is refused (api-v1 §6.7): it bootstraps, and the run's next round pushes on top.
        _ = try await b.events.createEventType(name: "Fresh")
        let first = await b.engine.performSync()
        #expect(first.outcome == .synced(bootstrapped: false) && first.counts.givenBack == 1)
        #expect(try b.history().first(where: { $0.kind == .bootstrap }) != nil)
        let second = await a.engine.performSync()
        #expect(second.outcome == .synced(bootstrapped: true) && second.counts.givenBack == 0)
        for device in [a, b] {
            #expect(try device.events.eventTypes().map(\.name).sorted() == ["Coffee", "Fresh", "Lost"])
            let position = try device.engineState().position
            #expect(position == a.model.latestPosition(user: a.network.userId), "the cursor with its change's time")
        }
        let sent = try #require(a.network.calls(of: .getChanges).last?.arguments)
        #expect(sent["since_created_at"] != nil, "the time goes with the cursor to a server that checks it")
    }

    @Test(
        "R15 a delete of an entity neither side holds goes back: a device that still holds the entity gives it back later, and it stays deleted"
    )
    func deleteGivenBackBeforeItsEntity() async throws {
        let (a, b, _) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 1)
        let lost = try await a.events.createEventType(name: "Lost")
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        a.clock.advance(by: 1)
        try await b.events.deleteEventType(id: lost.id)
        _ = await b.engine.performSync()
        #expect(try b.queue().isEmpty, "the delete was acknowledged")
        a.clock.advance(by: 60)
        a.model.restore(backup)

        // b meets the new history first: neither b nor the server holds the type, so no digest shows it; the delete
        // goes back all the same, and a's copy, given back next, finds it remembered.
        let first = await b.engine.performSync()
        #expect(first.counts.givenBack == 1)
        let second = await a.engine.performSync()
        #expect(second.counts.givenBack == 0)
        #expect(!a.model.eventTypes(of: a.network.userId).contains { $0.id == lost.id }, "not brought back")
        #expect(try a.events.eventType(id: lost.id) == nil && b.events.eventType(id: lost.id) == nil)
    }

    @Test(
        "R15 event properties are given back key by key: a property written after the restore keeps out no older acknowledged value of another",
        arguments: [true, false])
    func propertiesGivenBackKeyByKey(_ announced: Bool) async throws {
        let (a, b, type) = try await twoDevices()
        let event = try await a.event(type, 1) { $0.properties = ["fa": PropertyValue(type: .text, value: "a0")] }
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        _ = try await a.events.updateEvent(id: event.id) {
            $0.properties["fa"] = PropertyValue(type: .text, value: "a1")  // queued, not yet pushed
        }
        _ = try await b.events.updateEvent(id: event.id) {
            $0.properties["fb"] = PropertyValue(type: .text, value: "b1")
        }
        _ = await b.engine.performSync()  // acknowledged, then lost to the restore
        a.clock.advance(by: 60)
        a.model.restore(backup, announcing: announced)

        // a pushes its property first, on the restored server; b's acknowledged property comes back after it.
        _ = await a.engine.performSync()
        if !announced { _ = await a.engine.verify() }
        _ = await b.engine.performSync()
        if !announced { _ = await b.engine.verify() }
        for device in [a, b] { _ = await device.engine.performSync() }
        let served = try #require(a.serverEvents.first { $0.id == event.id })
        #expect(served.properties["fa"]?.value == "a1", "the queued property, pushed after the restore")
        #expect(served.properties["fb"]?.value == "b1", "the other device's acknowledged property, given back")
        for device in [a, b] {
            let row = try #require(try device.events.event(id: event.id))
            #expect(row.properties["fa"]?.value == "a1" && row.properties["fb"]?.value == "b1")
        }
    }

    @Test(
        "R15 api-v1 §6.6 a delete the restored server never knew is acknowledged at the time its 404 says: a second restore loses it, it goes back, and another device's copy stays out",
        arguments: [true, false])
    func deleteOfUnknownIdGivenBack(_ deleterFirst: Bool) async throws {
        let (a, b, _) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 1)
        let lost = try await a.events.createEventType(name: "Lost")
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        a.clock.advance(by: 60)
        a.model.restore(backup)
        try await a.events.deleteEventType(id: lost.id)
        _ = await a.engine.performSync()  // the server lacks the type: remembered as deleted, answered 404 not_found
        #expect(try a.queue().isEmpty)
        let acknowledged = try a.read { try $0.acknowledgedVersions(ids: [lost.id]) }
        #expect(acknowledged.map(\.deleted) == [true], "the delete, at the time the server remembers it")
        #expect(
            acknowledged.first?.acknowledgedAt == a.model.deletedAt(user: a.network.userId, .eventType, id: lost.id))

        a.clock.advance(by: 60)
        a.model.restore(backup)  // the tombstone is lost too; b still holds the type
        for device in deleterFirst ? [a, b] : [b, a] { _ = await device.engine.performSync() }
        for device in [a, b] { _ = await device.engine.performSync() }
        #expect(!a.serverEventTypes.contains { $0.id == lost.id }, "not brought back")
        #expect(try a.events.eventType(id: lost.id) == nil && b.events.eventType(id: lost.id) == nil)
    }

    @Test(
        "R15 api-v1 §6.7 after a restore by hand, a push made from a position the server lost is refused unapplied; the device gives back, bootstraps, then pushes on top"
    )
    func pushFromLostPosition() async throws {
        let (a, b, type) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        _ = try await a.events.updateEventType(id: type.id) { $0.color = "#00AA00" }
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        a.clock.advance(by: 60)
        a.model.restore(backup, announcing: false)  // the file copied back: the same history, nothing tells

        // b writes first: its push is refused, it gives back a's acknowledged colour, takes the server's state,
        // then pushes its own type. The new rows take the ids a's cursor names, at other times.
        _ = try await b.events.createEventType(name: "Fresh")
        let first = await b.engine.performSync()
        // The run's last round pushed on top of the state the bootstrap took.
        #expect(first.outcome == .synced(bootstrapped: false) && first.counts.givenBack == 1, "\(first)")
        #expect(try b.history().prefix(2).map(\.kind) == [.incremental, .bootstrap], "newest first")
        #expect(b.network.calls(of: .updateEventTypeWithIdempotency).isEmpty)

        _ = try await a.events.updateEventType(id: type.id) { $0.name = "Coffee, renamed" }
        a.network.resetCalls()
        let second = await a.engine.performSync()
        #expect(second.outcome == .synced(bootstrapped: false), "\(second)")
        #expect(try a.history().prefix(2).map(\.kind) == [.incremental, .bootstrap], "newest first")
        let pushes = a.network.calls(of: .updateEventTypeWithIdempotency)
        #expect(pushes.count == 2, "refused once, then sent on top of the server's state")
        #expect(pushes.allSatisfy { $0.arguments["feed_position"] != nil }, "each from the cursor it held")
        _ = await b.engine.performSync()
        let served = try #require(a.model.eventTypes(of: a.network.userId).first { $0.id == type.id })
        #expect(served.color == "#00AA00" && served.name == "Coffee, renamed", "neither edit is lost")
        for device in [a, b] {
            let row = try #require(try device.events.eventType(id: type.id))
            #expect(row.color == "#00AA00" && row.name == "Coffee, renamed")
            #expect(try Set(device.events.eventTypes().map(\.name)) == ["Coffee, renamed", "Fresh"])
        }
    }

    @Test(
        "R15 an edit queued before a restore is given back as pending: a version another device acknowledged earlier, given back after, does not undo it",
        arguments: [true, false])
    func queuedEditGivenBackAsPending(_ editorFirst: Bool) async throws {
        let (a, b, backup, tea) = try await teaAfterBackup()
        _ = try await a.events.updateEventType(id: tea.id) { $0.color = "#AA0000" }  // queued, not yet pushed
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: tea.id) { $0.icon = "star" }
        _ = await b.engine.performSync()  // acknowledged after a's create
        a.clock.advance(by: 60)
        a.model.restore(backup)

        for device in editorFirst ? [a, b] : [b, a] { _ = await device.engine.performSync() }
        for device in [a, b] { _ = await device.engine.performSync() }
        let served = try #require(a.serverEventTypes.first { $0.id == tea.id })
        #expect(served.fields.color == "#AA0000", "the queued edit, pushed after the restore, stands")
        #expect(served.fields.icon == "star", "the other device's acknowledged edit too")
        for device in [a, b] {
            let row = try #require(try device.events.eventType(id: tea.id))
            #expect(row.color == "#AA0000" && row.icon == "star")
            #expect(try device.queue().isEmpty)
        }
    }

    @Test("R15 api-v1 §6.7 a server that refuses every write for its position costs one bootstrap a run, then an error")
    func feedPositionRefusedForever() async throws {
        let (a, _, type) = try await twoDevices()
        _ = try await a.events.updateEventType(id: type.id) { $0.color = "#00AA00" }
        a.network.setStickyError(http(410, "cursor_expired"), for: .updateEventTypeWithIdempotency)
        a.network.resetCalls()
        let report = await a.engine.performSync()
        #expect(report.outcome.name == "error", "\(report)")
        #expect(a.network.callCount(.updateEventTypeWithIdempotency) == 2, "refused, bootstrapped, refused: stop")
        #expect(a.network.callCount(.getLatestCursor) == 1, "one bootstrap")
        #expect(try a.mutations(of: type.id).map(\.isLive) == [true], "the edit waits, unapplied")
    }

    @Test(
        "R15 a version the restored server refuses (its name taken since) is kept as a dead letter naming the holder, its event too; nothing read back away"
    )
    func refusedGiveBackBecomesDeadLetter() async throws {
        let (a, _, _) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        let tea = try await a.events.createEventType(name: "Tea")
        let cup = try await a.event(tea, 1)
        _ = await a.engine.performSync()
        a.clock.advance(by: 60)
        a.model.restore(backup)
        // A device new to the server creates the same name first.
        let c = try a.secondDevice()
        _ = await c.engine.performSync()
        let theirs = try await c.events.createEventType(name: "Tea")
        _ = await c.engine.performSync()
        _ = try await a.events.updateEventType(id: tea.id) { $0.color = "#112233" }  // queued, not yet pushed

        a.network.resetCalls()
        let report = await a.engine.performSync()
        #expect(report.counts.givenBack == 0 && report.deadLetters >= 1, "\(report)")
        let queued = try a.mutations(of: tea.id)
        let dead = try #require(queued.first)
        #expect(queued.count == 1 && dead.operation == .create && dead.isDeadLetter, "the create replaced the edit")
        #expect(a.network.callCount(.createEventTypeWithIdempotency) == 0, "dead until the user says otherwise")
        #expect(dead.heldOnServerBy == theirs.id, "the hint names the type to merge into: \(dead.lastError ?? "")")
        let kept = try #require(try a.events.eventType(id: tea.id), "the user's type is kept")
        #expect(kept.name == "Tea" && kept.color == "#112233", "with the edit that was queued")
        #expect(try a.events.event(id: cup.id) != nil, "and its event")
        #expect(try a.mutations(of: cup.id).map { "\($0.operation) \($0.isDeadLetter)" } == ["create true"])
        #expect(try a.owed().isEmpty, "nothing waits to be read back away")

        // Discarded, the type is the server's to tell: it has none of that id, so it goes, and stays gone.
        _ = try await a.engine.discardMutations(ids: [dead.id])
        _ = await a.engine.performSync()
        #expect(try a.events.eventType(id: tea.id) == nil)
        #expect(try a.mutations(of: tea.id).isEmpty)
    }

    @Test(
        "R15 R4 an event owed a read-back when the server went back to a copy without it, its give-back refused with its type's, is kept as a dead letter: the read-back's 404 never takes an acknowledged version away"
    )
    func refusedGiveBackOfOwedEntity() async throws {
        let (a, _, _) = try await twoDevices()
        let backup = a.model.backUp()
        a.clock.advance(by: 10)
        let tea = try await a.events.createEventType(name: "Tea")
        _ = await a.engine.performSync()
        let cup = try await a.event(tea, 1)
        // The batch commits and its answer is lost; the retry is answered from the key's record (R5), which leaves
        // the event owed a read-back that the round's failed pull never reaches.
        try await a.syncLosingCommittedBatch()
        a.network.enqueue(http(500), for: .getChanges)
        _ = await a.engine.performSync()
        #expect(try a.queue().isEmpty && a.owed().map(\.id) == [cup.id], "answered, owed, not yet read back")
        #expect(try a.read { try $0.acknowledgedVersions(ids: [cup.id]) }.map(\.deleted) == [false])
        a.clock.advance(by: 60)
        a.model.restore(backup)
        // A device new to the server creates the type's name first: the type's give-back is refused, and its
        // event's with it.
        let c = try a.secondDevice()
        _ = await c.engine.performSync()
        _ = try await c.events.createEventType(name: "Tea")
        _ = await c.engine.performSync()

        let report = await a.engine.performSync()
        #expect(report.deadLetters >= 2, "\(report)")
        #expect(try a.events.event(id: cup.id) != nil, "the acknowledged event is kept")
        #expect(try a.mutations(of: cup.id).map { "\($0.operation) \($0.isDeadLetter)" } == ["create true"])
        #expect(try a.owed().isEmpty, "nothing waits to be read back away")
        #expect(!a.network.calls(of: .fetchEntity).contains { $0.arguments["id"] == cup.id }, "never read back")
    }

    @Test(
        "R15 R4 an event owed a read-back when the server's file was copied back by hand from before it, the device's position still held there: the read-back's 404 gives it back, not deletes it"
    )
    func owedEntityLostByUnmarkedCopy() async throws {
        let (a, _, type) = try await twoDevices()
        let copy = a.model.backUp()
        a.clock.advance(by: 10)
        let cup = try await a.event(type, 1)
        // The batch commits and its answer is lost; the retry is answered from the key's record (R5), which leaves
        // the event owed a read-back that the round's failed pull never reaches: the cursor stays where the copy
        // has it too.
        try await a.syncLosingCommittedBatch()
        a.network.enqueue(http(500), for: .getChanges)
        _ = await a.engine.performSync()
        #expect(try a.queue().isEmpty && a.owed().map(\.id) == [cup.id], "answered, owed, not yet read back")
        a.clock.advance(by: 60)
        a.model.restore(copy, announcing: false)

        let report = await a.engine.performSync()
        #expect(try a.events.event(id: cup.id) != nil, "the acknowledged event is kept: \(report)")
        #expect(a.serverEvents.contains { $0.id == cup.id }, "and given back to the server")
        #expect(try a.owed().isEmpty && a.queue().isEmpty)
    }

    @Test(
        "R15 a device's acknowledged edit, whose pull failed, on a server copied back by hand from before the edit and written since by another device: the pull passes the version over, so it goes back before the other device's change is written"
    )
    func passedOverVersionGoesBack() async throws {
        let (a, b, type) = try await twoDevices()
        try await a.acknowledgeThenLoseByHand(
            { _ = try await a.events.updateEventType(id: type.id) { $0.color = "#A0A0A0" } },
            restoring: a.model.backUp())
        // b, whose position the copy holds too, edits another field of the type on the copy.
        _ = try await b.events.updateEventType(id: type.id) { $0.icon = "leaf" }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(a.serverEventTypes.first?.fields.color != "#A0A0A0", "the copy lost a's edit")

        let report = await a.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false), "\(report)")
        _ = await b.engine.performSync()
        try expectBothEdits(of: type, on: [a, b])
    }

    /// a's colour and b's icon on the server and on every device, nothing left queued or owed.
    private func expectBothEdits(of type: EventType, on devices: [SyncHarness]) throws {
        let server = try #require(devices.first?.serverEventTypes.first { $0.id == type.id })
        #expect(server.fields.color == "#A0A0A0" && server.fields.icon == "leaf", "both edits on the server")
        for device in devices {
            let row = try #require(try device.events.eventType(id: type.id))
            #expect(row.color == "#A0A0A0" && row.icon == "leaf", "both edits on every device")
            #expect(try device.owed().isEmpty && device.queue().isEmpty)
        }
    }

    @Test(
        "R15 a device's acknowledged edit, whose pull failed, on a server copied back by hand: a pull that reaches the feed's head without its echo gives it back, though the other device's edit comes only after that pull"
    )
    func versionMissingAtTheHeadGoesBack() async throws {
        try await expectVersionMissingAtTheHeadGoesBack(names: ["Tea"]) { a in
            #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        }
    }

    @Test(
        "R15 the same, the pull cut off after a page that went past the version's time: the next pull that reaches the head checks from where the first began, and gives it back"
    )
    func versionMissingAtTheHeadAcrossACutOffPull() async throws {
        try await expectVersionMissingAtTheHeadGoesBack(names: ["Tea", "Mate"]) { a in
            // a's pull reads the first change, then its connection drops.
            let firstPage = try a.model.changes(user: a.network.userId, since: try a.engineState().position, limit: 1)
            #expect(firstPage.hasMore && firstPage.changes.count == 1)
            a.network.enqueue(firstPage, for: .getChanges)
            a.network.enqueue(NetworkError.transport("the connection dropped"), for: .getChanges)
            #expect(await a.engine.performSync().outcome != .synced(bootstrapped: false))
            #expect(try a.engineState().cursor == firstPage.nextCursor, "the first page is applied")
            #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        }
    }

    /// a's acknowledged colour, lost by a copy put back by hand from before it; b then creates a type of each of
    /// `names` on the copy, so that a's next pulls (`pull`) end past the time of a's version without meeting it; only
    /// then b edits the icon. Both edits must end on the server and both devices.
    private func expectVersionMissingAtTheHeadGoesBack(
        names: [String], pull: (SyncHarness) async throws -> Void
    ) async throws {
        let (a, b, type) = try await twoDevices()
        try await a.acknowledgeThenLoseByHand(
            { _ = try await a.events.updateEventType(id: type.id) { $0.color = "#A0A0A0" } },
            restoring: a.model.backUp())
        for name in names { _ = try await b.events.createEventType(name: name) }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        try await pull(a)
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: type.id) { $0.icon = "leaf" }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))

        for device in [a, b] { _ = await device.engine.performSync() }
        try expectBothEdits(of: type, on: [a, b])
    }

    @Test(
        "R15 on a server copied back by hand, another device's give-back of an older version comes before the echo of the one this device holds, which never comes: the older entry is not written over the row, and the version goes back whole"
    )
    func olderVersionBeforeAMissingEchoIsNotApplied() async throws {
        let (a, b, type) = try await twoDevices()
        let copy = a.model.backUp()
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: type.id) { $0.icon = "star" }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        // a's later edit of the same field, acknowledged; its pull fails; the copy put back by hand still holds a's
        // position, not b's.
        try await a.acknowledgeThenLoseByHand(
            { _ = try await a.events.updateEventType(id: type.id) { $0.icon = "leaf" } }, restoring: copy)
        // b's cursor is above every change of the copy: it gives back its version, older than a's, and bootstraps.
        _ = await b.engine.performSync()
        #expect(a.serverEventTypes.first { $0.id == type.id }?.fields.icon == "star", "b's version is back")

        for device in [a, b, a, b] { _ = await device.engine.performSync() }
        #expect(a.serverEventTypes.first { $0.id == type.id }?.fields.icon == "leaf", "a's later version on the server")
        for device in [a, b] {
            #expect(try device.events.eventType(id: type.id)?.icon == "leaf", "a's later version on every device")
            #expect(try device.owed().isEmpty && device.queue().isEmpty)
        }
    }

    @Test(
        "R15 a sent create of an entity the device held acknowledged (a refused give-back kept as a create, retried) goes back dated that version, not its send: a later edit of another device wins"
    )
    func retriedCreateGoesBackAsItsVersion() async throws {
        let (a, b, backup, tea) = try await teaAfterBackup()
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: tea.id) { $0.color = "#B0B0B0" }
        _ = await b.engine.performSync()  // acknowledged after a's version
        a.clock.advance(by: 10)
        // a's older version queued as a create and sent, its answer never come: what `queue retry` makes of a
        // refused give-back's dead letter.
        let store = a.stores.makeDataStore()
        let row = try #require(try store.findEventType(id: tea.id))
        _ = try store.enqueueMutation(
            entityType: .eventType, operation: .create, entityId: tea.id, payload: try MutationPayload.create(row),
            at: a.clock.now())
        let create = try #require(try store.fetchMutations(entityId: tea.id).first)
        _ = try store.claimMutations(ids: [create.id], at: a.clock.now())
        try store.save()
        a.clock.advance(by: 60)
        a.model.restore(backup)

        for device in [a, b, a, b] { _ = await device.engine.performSync() }
        #expect(a.serverEventTypes.first { $0.id == tea.id }?.fields.color == "#B0B0B0", "b's later edit stands")
        for device in [a, b] {
            #expect(try device.events.eventType(id: tea.id)?.color == "#B0B0B0")
            #expect(try device.queue().isEmpty)
        }
    }

    @Test(
        "R15 a refused give-back the user retries goes back dated the version it holds, not as a new create: another device's later acknowledged edit, given back after it, still wins"
    )
    func retriedDeadLetterGoesBackAsItsVersion() async throws {
        let (a, b, backup, tea) = try await teaAfterBackup()
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: tea.id) { $0.color = "#B0B0B0" }
        _ = await b.engine.performSync()  // acknowledged after a's version, which a still holds
        a.clock.advance(by: 60)
        a.model.restore(backup)
        let refused = try await teaGiveBackRefused(a, tea)
        // The name is free again, and the user retries.
        try await refused.freeTheName()
        #expect(try await a.engine.retryDeadLetters() == 1)
        a.clock.advance(by: 10)
        a.network.resetCalls()
        _ = await a.engine.performSync()
        #expect(a.network.callCount(.createEventTypeWithIdempotency) == 0, "given back, not created anew")
        #expect(a.serverEventTypes.first { $0.id == tea.id } != nil, "the server holds a's version")

        for device in [b, a, b] { _ = await device.engine.performSync() }
        #expect(a.serverEventTypes.first { $0.id == tea.id }?.fields.color == "#B0B0B0", "b's later edit stands")
        for device in [a, b] {
            #expect(try device.events.eventType(id: tea.id)?.color == "#B0B0B0")
            #expect(try device.queue().isEmpty)
        }
    }

    @Test(
        "R15 sync-engine §1.7 an unsent edit of an entity whose give-back is refused stays in the dead letter, and reaches the server once the user retries, though another device gave the entity back meanwhile"
    )
    func refusedGiveBackKeepsTheQueuedEdit() async throws {
        let (a, b, backup, tea) = try await teaAfterBackup()
        a.clock.advance(by: 10)
        _ = try await a.events.updateEventType(id: tea.id) { $0.icon = "leaf" }  // queued, never sent
        a.model.restore(backup)
        let refused = try await teaGiveBackRefused(a, tea)
        // The refused give-back replaces the queued update: the create's body holds the edit, and so do its
        // folded edits.
        #expect(try a.queue().count == 1)
        #expect(refused.dead.foldedEdits.map(MutationPayload.members(setBy:)) == ["icon"])

        // The name is free again; b gives back the version both devices hold, then a's user retries: the server
        // holds that version already, and only the folded edits carry a's icon there.
        try await refused.freeTheName()
        _ = await b.engine.performSync()
        #expect(a.serverEventTypes.first { $0.id == tea.id } != nil, "b gave it back")
        #expect(try await a.engine.retryDeadLetters() == 1)
        a.clock.advance(by: 10)
        for device in [a, b] { _ = await device.engine.performSync() }
        #expect(a.serverEventTypes.first { $0.id == tea.id }?.fields.icon == "leaf", "the edit reached the server")
        for device in [a, b] {
            #expect(try device.events.eventType(id: tea.id)?.icon == "leaf")
            #expect(try device.queue().isEmpty)
        }
    }

    @Test(
        "R15 a copy put back by hand, and a device that writes before its verify: an answer older in a field the device holds acknowledged does not take it away; that version goes back first"
    )
    func answerOfALostCopyGivesBackFirst() async throws {
        let (a, b, tea) = try await iconEditOnALostCopy()
        _ = await a.engine.performSync()  // the icon's answer carries the copy's color

        for device in [b, a, b] { _ = await device.engine.performSync() }
        let served = try #require(a.serverEventTypes.first { $0.id == tea.id })
        #expect(served.fields.color == "#AA0000", "a's acknowledged color came back")
        #expect(served.fields.icon == "leaf")
        for device in [a, b] {
            let row = try #require(try device.events.eventType(id: tea.id))
            #expect(row.color == "#AA0000" && row.icon == "leaf")
            #expect(try device.queue().isEmpty && device.owed().isEmpty)
        }
    }

    @Test(
        "R15 the give-back such an answer calls for fails: the debt is kept, the next pull does not take the field away, and the version goes back next round"
    )
    func failedGiveBackAfterALostCopysAnswerIsOwed() async throws {
        let (a, b, tea) = try await iconEditOnALostCopy()
        // The give-back the answer calls for fails, and so does every later one of the round.
        a.network.setStickyError(.transport("connection lost"), for: .giveBack)
        _ = await a.engine.performSync()
        a.network.setStickyError(nil, for: .giveBack)
        #expect(try a.owed().map(\.id) == [tea.id], "what is owed outlives the failed give-back")
        #expect(try a.events.eventType(id: tea.id)?.color == "#AA0000")
        #expect(try a.owed().first?.reason == .giveBack)
        // The next round gives the version back before it pulls the answer's entry, which holds the copy's color.
        _ = await a.engine.performSync()
        #expect(try a.events.eventType(id: tea.id)?.color == "#AA0000", "the entry was not written over the row")
        #expect(a.serverEventTypes.first { $0.id == tea.id }?.fields.color == "#AA0000", "paid before the pull")

        for device in [a, b, a, b] { _ = await device.engine.performSync() }
        let served = try #require(a.serverEventTypes.first { $0.id == tea.id })
        #expect(served.fields.color == "#AA0000", "a's acknowledged color came back")
        #expect(served.fields.icon == "leaf")
        for device in [a, b] {
            let row = try #require(try device.events.eventType(id: tea.id))
            #expect(row.color == "#AA0000" && row.icon == "leaf")
            #expect(try device.queue().isEmpty && device.owed().isEmpty)
        }
    }

    @Test("R15 an update's answer that differs only where another device edited since goes back, and the edit stays")
    func answerWithAnotherDevicesEditKeepsIt() async throws {
        let (a, b, _) = try await twoDevices()
        let tea = try await a.syncedType("Tea")
        _ = await b.engine.performSync()
        a.clock.advance(by: 10)
        _ = try await b.events.updateEventType(id: tea.id) { $0.color = "#00BB00" }
        _ = await b.engine.performSync()
        a.clock.advance(by: 10)
        _ = try await a.events.updateEventType(id: tea.id) { $0.icon = "leaf" }  // a has not pulled b's color
        a.network.resetCalls()
        _ = await a.engine.performSync()
        #expect(a.network.callCount(.giveBack) == 1, "the answer's other color is checked with the server")

        for device in [b, a] { _ = await device.engine.performSync() }
        let served = try #require(a.serverEventTypes.first { $0.id == tea.id })
        #expect(served.fields.color == "#00BB00" && served.fields.icon == "leaf", "b's later color stands")
        for device in [a, b] {
            let row = try #require(try device.events.eventType(id: tea.id))
            #expect(row.color == "#00BB00" && row.icon == "leaf")
        }
    }

    @Test("S72 the resurrection fence: entries for ids deleted here, pushed this round or still queued, are skipped")
    func resurrectionFence() async throws {
        let (a, b, type) = try await twoDevices()
        let stillQueued = try await a.event(type, 1)
        let pushedNow = try await a.event(type, 2)
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        _ = try await b.events.updateEvent(id: stillQueued.id) { $0.notes = "edited on b" }
        _ = try await b.events.updateEvent(id: pushedNow.id) { $0.notes = "edited on b" }
        let fence = try await b.events.createGeofence(name: "Office", latitude: 1, longitude: 2)
        _ = await b.engine.performSync()

        try await a.events.deleteEvent(id: stillQueued.id)
        try await a.events.deleteEvent(id: pushedNow.id)
        try a.updateEngineState { $0.pendingDeleteIds = [fence.id] }
        a.network.enqueue(http(500), for: .deleteEvent)  // the first delete stays queued
        a.network.setStickyError(http(503), for: .fetchEntity)  // the read-backs wait for the next round
        let report = await a.engine.performSync()

        #expect(report.outcome == .partial(bootstrapped: false))
        #expect(try a.events.event(id: stillQueued.id) == nil && a.events.event(id: pushedNow.id) == nil)
        #expect(try a.events.geofence(id: fence.id) == nil, "fenced in the feed and in the geofence refresh")
        // S72: A create or update entry is skipped when its id is in pending_delete_ids or has a queued delete…
        #expect(try a.history().first?.fenced == 4, "two event updates, the geofence's create and its refresh")
        // R4: a skip only because of pending_delete_ids is owed (the server still has the geofence: a restore, say);
        // a skip because of a queued delete is not.
        #expect(try Set(a.owed().map(\.id)) == [pushedNow.id, fence.id])

        a.network.setStickyError(nil, for: .fetchEntity)
        a.network.resetCalls()
        _ = await a.engine.performSync()
        #expect(try a.events.geofence(id: fence.id)?.name == "Office", "read back: the server holds it")
        #expect(try a.events.event(id: pushedNow.id) == nil, "read back: 404, gone")
        #expect(try a.owed().isEmpty)
    }

    @Test("S73 R3 an entity with a live or dead update is rebased: the server's other fields and the local edit stay")
    func pendingWriteFence() async throws {
        let configuration = try SyncConfiguration(maxAttempts: 1)
        let a = try SyncHarness(configuration: configuration)
        let live = try await a.syncedType("Live")
        let dead = try await a.syncedType("Dead")
        let b = try a.secondDevice()
        _ = await b.engine.performSync()
        _ = try await b.events.updateEventType(id: live.id) { $0.color = "#000001" }
        _ = try await b.events.updateEventType(id: dead.id) { $0.color = "#000002" }
        _ = await b.engine.performSync()

        _ = try await a.events.updateEventType(id: live.id) { $0.name = "Live from a" }
        _ = try await a.events.updateEventType(id: dead.id) { $0.name = "Dead from a" }
        a.network.enqueue(http(429), for: .updateEventTypeWithIdempotency)  // no attempt: stays live
        a.network.enqueue(http(400), for: .updateEventTypeWithIdempotency)  // the only attempt: dead letter
        let report = await a.engine.performSync()

        #expect(report.outcome == .partial(bootstrapped: false))
        #expect(
            try a.mutations(of: live.id).map(\.isLive) == [true]
                && a.mutations(of: dead.id).map(\.isDeadLetter) == [true])
        // S73 (R3): b's entries are applied, then a's queued patch over them; the row keeps its update's status.
        let liveRow = try a.events.eventType(id: live.id)
        let deadRow = try a.events.eventType(id: dead.id)
        #expect(liveRow?.name == "Live from a" && liveRow?.color == "#000001" && liveRow?.syncStatus == .pending)
        #expect(deadRow?.name == "Dead from a" && deadRow?.color == "#000002" && deadRow?.syncStatus == .failed)
        #expect(try a.history().first?.fenced == 0, "a rebase counts as pulled")
        #expect(try Set(a.owed().map(\.id)) == [live.id, dead.id], "R3 either way owed")

        #expect(await a.engine.performSync().outcome == .partial(bootstrapped: false), "the dead letter stays")
        let server = Dictionary(uniqueKeysWithValues: a.serverEventTypes.map { ($0.id, $0) })
        #expect(server[live.id]?.name == "Live from a" && server[live.id]?.color == "#000001", "both edits kept")
    }

    /// Found by `make proof` (convergence seed 62, 2026-11-23; docs/history/reliability.md, "Fixed: a replayed
    /// update hid a later edit"). Fixed by R4 and R5: the fenced entry and the replayed answer each make the type owed,
    /// and the read-back after the replay brings b's icon.
    @Test("R4 R5 a replayed update whose answer an edit fenced by S73 has since overtaken is read back: no divergence")
    func replayedUpdateHidesLaterEdit() async throws {
        let (a, b, type) = try await twoDevices()

        // a's update reaches the server, but its answer is lost: the mutation stays pending under its key.
        _ = try await a.events.updateEventType(id: type.id) { $0.icon = "icon-a" }
        let update = try #require(try a.mutations(of: type.id).first)
        let body = try JSONCoding.decode(UpdateEventTypeRequest.self, from: try #require(update.payload))
        _ = try await a.network.updateEventTypeWithIdempotency(
            id: type.id, body, idempotencyKey: update.clientRequestId)
        // Then b's later edit lands on top of it.
        _ = try await b.events.updateEventType(id: type.id) { $0.icon = "icon-b" }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))

        // a's re-send fails once; its pull fences b's entry (S73) and moves the cursor past it.
        a.network.enqueue(http(503), for: .updateEventTypeWithIdempotency)
        #expect(await a.engine.performSync().outcome == .partial(bootstrapped: false))
        // The next re-send is replayed: the server answers a's old state and changes nothing.
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try a.mutations(of: type.id).isEmpty)
        #expect(a.serverEventTypes.first { $0.id == type.id }?.icon == "icon-b")
        // R5: the replayed answer proves nothing; R4: the type is read back, so the device holds b's icon.
        let row = try a.events.eventType(id: type.id)
        #expect(row?.icon == "icon-b" && row?.syncStatus == .synced)
        #expect(try a.owed().isEmpty)
    }

    @Test("S74 deletes always apply with the local cascade; children with a create mutation stay")
    func deletesCascade() async throws {
        let (a, b, type) = try await twoDevices()
        let synced = try await a.event(type, 1)
        _ = await a.engine.performSync()
        _ = await b.engine.performSync()
        try await b.events.deleteEventType(id: type.id)
        _ = await b.engine.performSync()

        let local = try await a.event(type, 2)
        a.network.enqueue(http(500), for: .createEventsBatchWithIdempotency)
        let report = await a.engine.performSync()

        #expect(report.outcome == .partial(bootstrapped: false))
        #expect(try a.events.eventType(id: type.id) == nil && a.events.event(id: synced.id) == nil)
        #expect(try a.events.event(id: local.id) != nil, "the unsent create keeps its event")
        // S74: Delete entries are always applied, with the local cascade; cascaded children that have a create…
        #expect(try a.mutations(of: local.id).map(\.operation) == [.create])
    }

    @Test("S76 S77 partial rows, unknown entity types and unknown operations are skipped; the rest applies")
    func partialRowsSkipped() async throws {
        let h = try SyncHarness()
        let type = try await h.syncedType()
        let cursor = try h.engineState().cursor
        let user = MockNetworkClient.defaultUserId
        let good = Build.id(500)
        func event(_ id: String, user: String = user, typeId: String, at time: String) -> JSONValue {
            ["id": .string(id), "user_id": .string(user), "event_type_id": .string(typeId), "timestamp": .string(time)]
        }
        h.network.enqueue(
            page(
                [
                    entry(
                        cursor + 1, "event", "create", entity: Build.id(501),
                        data: event(
                            Build.id(501), user: "", typeId: type.id, at: "2026-01-01T00:00:00Z")),
                    entry(
                        cursor + 2, "event", "create", entity: Build.id(502),
                        data: event(
                            Build.id(502), typeId: "", at: "2026-01-01T00:00:00Z")),
                    entry(
                        cursor + 3, "event", "create", entity: Build.id(503),
                        data: event(
                            Build.id(503), typeId: type.id, at: "0001-01-01T00:00:00Z")),
                    entry(cursor + 4, "widget", "create", entity: Build.id(504), data: ["user_id": .string(user)]),
                    entry(cursor + 5, "event_type", "merge", entity: type.id, data: ["name": "Merged"]),
                    entry(
                        cursor + 6, "event", "create", entity: good,
                        data: event(
                            good, typeId: type.id, at: "2026-01-01T00:00:00Z")),
                ], next: cursor + 6),
            for: .getChanges)
        let report = await h.engine.performSync()
        #expect(report.outcome == .synced(bootstrapped: false) && report.pulled == 1)
        #expect(try h.events.events().map(\.id) == [good])
        // S76: Entries with absent or empty user_id, empty event_type_id, or an event timestamp of year 0001 are…
        // S77: Unknown entity types and operations are skipped; unknown property_type reads as text; unknown…
        #expect(try h.events.eventType(id: type.id)?.name == "Coffee")
        #expect(try h.engineState().cursor == cursor + 6)
    }

    @Test("S78 the geofence refresh writes unfenced server geofences, keeps local-only ones, and never fails the round")
    func geofenceRefresh() async throws {
        let (a, b, _) = try await twoDevices()
        let remote = try await b.events.createGeofence(name: "Gym", latitude: 1, longitude: 2)
        _ = await b.engine.performSync()
        let localOnly = Build.geofence(id: Build.id(900), name: "Only here", syncStatus: .synced)
        let store = a.stores.makeDataStore()
        _ = try store.upsertGeofence(id: localOnly.id) { $0 = localOnly }
        try store.save()

        a.network.enqueue(page(next: try a.engineState().cursor), for: .getChanges)  // the feed misses the geofence
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(try a.events.geofence(id: remote.id)?.name == "Gym")
        #expect(try a.events.geofence(id: localOnly.id) != nil)

        a.network.enqueue(http(500), for: .getGeofences)
        // S78: After an incremental pull, when geofenceRefreshInterval (configuration; .standard 0 = every round, as…
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false), "its errors change nothing")
    }

    @Test("S78 with an interval the refresh runs once it has passed since the last; a bootstrap or a failure counts")
    func geofenceRefreshInterval() async throws {
        let h = try SyncHarness(configuration: try SyncConfiguration(geofenceRefreshInterval: 3600))
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: true))
        #expect(try h.engineState().geofencesRefreshedAt == h.clock.now(), "the snapshot held every geofence")
        func refreshes(after seconds: TimeInterval) async -> Int {
            h.clock.advance(by: seconds)
            h.network.resetCalls()
            _ = await h.engine.performSync()
            return h.network.callCount(.getGeofences)
        }
        _ = try await h.syncedType()
        // S78: …when geofenceRefreshInterval (configuration; .standard 0 = every round…; .throughput 1 h) has passed…
        #expect(await refreshes(after: 3599) == 0)
        #expect(await refreshes(after: 1) == 1, "an hour after the bootstrap")
        #expect(await refreshes(after: 0) == 0)
        h.network.enqueue(http(500), for: .getGeofences)
        #expect(await refreshes(after: 3600) == 1)
        #expect(await refreshes(after: 0) == 1, "a failed refresh does not restart the interval")
        #expect(await refreshes(after: 0) == 0)
        // The time is stored: a new engine on the same database keeps the interval.
        let restarted = SyncEngine(
            networkClient: h.network, dataStoreFactory: h.stores, hashing: CryptoSHA256(), clock: h.clock,
            configuration: try SyncConfiguration(geofenceRefreshInterval: 3600))
        h.network.resetCalls()
        _ = await restarted.performSync()
        #expect(h.network.callCount(.getGeofences) == 0)

        let standard = try SyncHarness()
        _ = try await standard.syncedType()
        standard.network.resetCalls()
        for _ in 0..<3 { _ = await standard.engine.performSync() }
        #expect(
            standard.network.calls.map(\.method)
                == Array(repeating: [.getChanges, .getGeofences], count: 3).flatMap { $0 })
    }

    @Test(
        "S79 a pull error ends the round by its class; pages already applied stay",
        arguments: [
            (http(500, message: "boom"), "error"), (NetworkError.transport("gone"), "offline"),
            (http(401), "auth_required"), (http(429, retryAfter: 30), "rate_limited"),
        ])
    func pullErrors(error: NetworkError, outcome: String) async throws {
        let (a, b, _) = try await twoDevices()
        _ = try await b.events.createEventType(name: "Tea")
        _ = await b.engine.performSync()
        let served = try await a.network.getChanges(since: try a.engineState().cursor, limit: 100)
        a.network.resetCalls()
        a.network.enqueue(
            ChangeFeedResponse(changes: served.changes, nextCursor: served.nextCursor, hasMore: true), for: .getChanges)
        a.network.enqueue(error, for: .getChanges)

        let report = await a.engine.performSync()
        #expect(report.outcome.name == outcome)
        #expect(try Set(a.events.eventTypes().map(\.name)) == ["Coffee", "Tea"])
        #expect(try a.engineState().cursor == served.nextCursor)
        // S79: A non-transport, non-401, non-429 pull error ends the round error; pages already applied stay.
        #expect(a.network.callCount(.getGeofences) == 0)
    }
}

/// The start of the restore scenarios: two devices, a backup of the server, then a type "Tea" that `a` created and
/// both devices hold acknowledged — which the backup lacks.
/// A copy of the server put back by hand (no new history) after `a` set the type's color to `#AA0000`, pushed it and
/// failed to pull, so `a`'s feed position is still one the copy holds; then `a` queues an icon edit. Its next push's
/// answer carries the copy's older color.
private func iconEditOnALostCopy() async throws -> (a: SyncHarness, b: SyncHarness, tea: EventType) {
    let (a, b, _) = try await twoDevices()
    let tea = try await a.syncedType("Tea")
    _ = await b.engine.performSync()
    let copy = a.model.backUp()
    a.clock.advance(by: 10)
    _ = try await a.events.updateEventType(id: tea.id) { $0.color = "#AA0000" }
    // Pushed and acknowledged; the pull fails, so a's feed position stays one the copy holds.
    a.network.enqueue(http(500), for: .getChanges)
    _ = await a.engine.performSync()
    #expect(a.serverEventTypes.first { $0.id == tea.id }?.fields.color == "#AA0000")
    a.model.restore(copy, announcing: false)  // by hand: no new history, and a's position still exists
    a.clock.advance(by: 10)
    _ = try await a.events.updateEventType(id: tea.id) { $0.icon = "leaf" }
    return (a, b, tea)
}

private func teaAfterBackup() async throws -> (
    a: SyncHarness, b: SyncHarness, backup: InMemoryTrendyServer.Backup, tea: EventType
) {
    let (a, b, _) = try await twoDevices()
    let backup = a.model.backUp()
    a.clock.advance(by: 10)
    let tea = try await a.syncedType("Tea")
    _ = await b.engine.performSync()
    return (a, b, backup, tea)
}

/// A device new to the restored server takes the name "Tea" first, so `a`'s next round has its give-back of its own
/// "Tea" refused (a name another entity holds) and kept as a dead-letter create. Returns that dead letter, and a way
/// to free the name again (the other device deletes its type).
private func teaGiveBackRefused(
    _ a: SyncHarness, _ tea: EventType
) async throws -> (dead: PendingMutation, freeTheName: () async throws -> Void) {
    let c = try a.secondDevice()
    _ = await c.engine.performSync()
    let theirs = try await c.events.createEventType(name: "Tea")
    _ = await c.engine.performSync()
    _ = await a.engine.performSync()
    let dead = try #require(try a.mutations(of: tea.id).first)
    #expect(dead.operation == .create && dead.isDeadLetter, "\(dead)")
    return (
        dead,
        {
            try await c.events.deleteEventType(id: theirs.id)
            _ = await c.engine.performSync()
        }
    )
}
