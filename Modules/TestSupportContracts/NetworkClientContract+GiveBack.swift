import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Restores: the history and the give-back (api-v1 §15; sync-engine R15)

extension NetworkClientContract {
    static let giveBackChecks: [Check] = [
        check("R15 every answer names the server's history") { subject in
            let client = subject.client
            _ = try await client.getLatestCursor()
            let history = try #require(client.serverHistory, "an answer was received")
            #expect(!history.id.isEmpty)
        },
        check("N12 give-back: newer versions taken, older kept, lost entities back parents first, deletes dated") {
            subject in
            let client = subject.client
            let held = try await eventType(client, name: "Held \(newId().suffix(6))")
            let heldAt = try #require(held.updatedAt)
            let lostType = APIEventType(
                id: newId(), userId: held.userId, fields: EventTypeFields(name: "Lost \(newId().suffix(6))"),
                createdAt: heldAt)
            let lostEvent = APIEvent(
                id: newId(), userId: held.userId, eventTypeId: lostType.id, timestamp: instant(40), notes: "back",
                isAllDay: false, sourceType: .manual)
            let later = heldAt.addingTimeInterval(3600)
            var renamed = held
            renamed.name = "Renamed \(newId().suffix(6))"
            let answer = try await client.giveBack([
                item(lostEvent, .event, at: later),
                item(renamed, .eventType, at: heldAt.addingTimeInterval(-3600)),
                item(lostType, .eventType, at: later),
            ])
            let outcomes = Dictionary(uniqueKeysWithValues: answer.results.map { ($0.id.lowercased(), $0.outcome) })
            #expect(outcomes[lostType.id] == .applied && outcomes[lostEvent.id] == .applied, "\(answer)")
            #expect(outcomes[held.id.lowercased()] == .kept, "an older version is kept out")
            guard case .event(let back)? = try await client.fetchEntity(.event, id: lostEvent.id) else {
                Issue.record("the lost event is back")
                return
            }
            #expect(back.notes == "back" && back.updatedAt == later, "it keeps its first acknowledgment")
            guard case .eventType(let stillHeld)? = try await client.fetchEntity(.eventType, id: held.id) else {
                Issue.record("the held type")
                return
            }
            #expect(stillHeld.name == held.name)

            let newer = try await client.giveBack([item(renamed, .eventType, at: later)])
            #expect(newer.results.first?.outcome == .applied)
            let deleted = try await client.giveBack([
                GiveBackItem(
                    entityType: .eventType, id: lostType.id, acknowledgedAt: later.addingTimeInterval(60),
                    deleted: true,
                    data: nil)
            ])
            #expect(deleted.results.first?.outcome == .applied)
            #expect(try await client.fetchEntity(.event, id: lostEvent.id) == nil, "the delete cascaded")
            let stale = try await client.giveBack([item(lostType, .eventType, at: later)])
            #expect(stale.results.first?.outcome == .deleted, "a version older than the delete stays deleted")
        },
        check(
            "N12 api-v1 §15.1 field by field: a later write to one field keeps out no older edit of another; one field given back twice ends on the newer"
        ) { subject in
            let client = subject.client
            let user = try await eventType(client, name: "Owner \(newId().suffix(6))").userId
            func at(_ month: Int) -> Date { Date(timeIntervalSince1970: 1_767_225_600 + Double(month) * 2_592_000) }
            let lost = APIEventType(
                id: newId(), userId: user, fields: EventTypeFields(name: "Lost \(newId().suffix(6))"),
                createdAt: at(1), updatedAt: at(1))
            #expect(try await client.giveBack([item(lost, .eventType, at: at(1))]).results.first?.outcome == .applied)
            var icon = UpdateEventTypeRequest()
            icon.icon = "star"
            let written = try await client.updateEventTypeWithIdempotency(id: lost.id, icon, idempotencyKey: key())
            func colour(_ value: String, at month: Int) async throws -> GiveBackOutcome? {
                var version = lost
                version.color = value
                return try await client.giveBack([item(version, .eventType, at: at(month))]).results.first?.outcome
            }
            #expect(try await colour("#111111", at: 2) == .applied, "older than the icon's write, newer than colour's")
            #expect(try await colour("#222222", at: 4) == .applied)
            #expect(try await colour("#333333", at: 3) == .kept, "older than the colour given back before")
            #expect(
                try await colour("#444444", at: 4) == .kept,
                "a version the server holds lost nothing: what differs from it was changed on the device")
            guard case .eventType(let held)? = try await client.fetchEntity(.eventType, id: lost.id) else {
                Issue.record("the type is held")
                return
            }
            #expect(held.color == "#222222" && held.icon == "star", "\(held)")
            #expect(held.updatedAt == written.updatedAt, "the row keeps the time of its later write")
        },
        check(
            "N13 api-v1 §6.7 a write made from a position the feed does not hold is refused with 410 and writes nothing; a "
                + "position it holds passes; the give-back carries none"
        ) { subject in
            let client = subject.client
            let type = try await eventType(client, name: "Positioned \(newId().suffix(6))")
            let held = try await client.getLatestPosition()
            defer { client.setWritePosition(nil) }
            client.setWritePosition(held)
            var renamed = UpdateEventTypeRequest()
            renamed.name = "Renamed \(newId().suffix(6))"
            _ = try await client.updateEventTypeWithIdempotency(id: type.id, renamed, idempotencyKey: key())
            let passed = try await client.getLatestPosition()
            #expect(passed.cursor > held.cursor, "a position the feed holds passes")

            var otherTime = passed
            otherTime.createdAt = passed.createdAt?.addingTimeInterval(-1)
            for position in [otherTime, FeedPosition(cursor: passed.cursor + 1_000_000)] {
                client.setWritePosition(position)
                var refused = UpdateEventTypeRequest()
                refused.name = "Refused \(newId().suffix(6))"
                await expectFailure(410, "cursor_expired") {
                    _ = try await client.updateEventTypeWithIdempotency(id: type.id, refused, idempotencyKey: key())
                }
                await expectFailure(410, "cursor_expired") {
                    _ = try await client.createEventsBatch(
                        [event(type: type.id, at: instant(7))], idempotencyKey: key())
                }
                await expectFailure(410, "cursor_expired") { try await client.deleteEventType(id: type.id) }
            }
            #expect(try await client.getLatestPosition() == passed, "nothing was written")
            guard case .eventType(let kept)? = try await client.fetchEntity(.eventType, id: type.id) else {
                Issue.record("the type is still there")
                return
            }
            #expect(kept.name == renamed.name)
            let given = try await client.giveBack([
                item(kept, .eventType, at: (kept.updatedAt ?? instant(0)).addingTimeInterval(60))
            ])
            #expect(given.results.first?.outcome == .applied, "the give-back is made for such a server")
        },
        check(
            "N12 api-v1 §15.1 a delete given back wins over an edit made since, as an edit of a deleted entity is refused; "
                + "not over a create made since"
        ) { subject in
            let client = subject.client
            let edited = try await eventType(client, name: "Edited \(newId().suffix(6))")
            let createdAt = try #require(edited.updatedAt)
            var renamed = UpdateEventTypeRequest()
            renamed.name = "Renamed \(newId().suffix(6))"
            _ = try await client.updateEventTypeWithIdempotency(id: edited.id, renamed, idempotencyKey: key())
            let afterCreate = createdAt.addingTimeInterval(0.001)
            let won = try await client.giveBack([
                GiveBackItem(
                    entityType: .eventType, id: edited.id, acknowledgedAt: afterCreate, deleted: true, data: nil)
            ])
            #expect(won.results.first?.outcome == .applied)
            #expect(try await client.fetchEntity(.eventType, id: edited.id) == nil, "the edit since does not keep it")

            let recreated = try await eventType(client, name: "Created \(newId().suffix(6))")
            let before = try #require(recreated.updatedAt).addingTimeInterval(-60)
            let lost = try await client.giveBack([
                GiveBackItem(entityType: .eventType, id: recreated.id, acknowledgedAt: before, deleted: true, data: nil)
            ])
            #expect(lost.results.first?.outcome == .kept, "created after the delete")
            #expect(try await client.fetchEntity(.eventType, id: recreated.id) != nil)
        },
        check(
            "N12 api-v1 §15.1 a delete and an edit of the incarnation it ended end deleted in either order; a "
                + "re-creation after the delete stays in either order"
        ) { subject in
            let client = subject.client
            func delete(_ id: String, at time: Date) async throws -> GiveBackOutcome? {
                let answer = try await client.giveBack([
                    GiveBackItem(entityType: .eventType, id: id, acknowledgedAt: time, deleted: true, data: nil)
                ])
                return answer.results.first?.outcome
            }
            func version(_ type: APIEventType, at time: Date) async throws -> GiveBackOutcome? {
                let answer = try await client.giveBack([item(type, .eventType, at: time)])
                return answer.results.first?.outcome
            }
            for deleteFirst in [true, false] {
                // Held as a backup holds it; one device deleted it, another edited it later through a copy of the
                // server's file that had lost the delete.
                var edited = try await eventType(client, name: "Ended \(newId().suffix(6))")
                let created = try #require(edited.createdAt)
                edited.color = "#123456"
                let (deletedAt, editedAt) = (created.addingTimeInterval(3600), created.addingTimeInterval(7200))
                if deleteFirst {
                    #expect(try await delete(edited.id, at: deletedAt) == .applied)
                    #expect(try await version(edited, at: editedAt) == .deleted, "an edit of what the delete ended")
                } else {
                    #expect(try await version(edited, at: editedAt) == .applied)
                    #expect(try await delete(edited.id, at: deletedAt) == .applied, "it ends the edited incarnation")
                }
                #expect(try await client.fetchEntity(.eventType, id: edited.id) == nil, "deleteFirst: \(deleteFirst)")
            }
            let user = try await eventType(client, name: "Owner \(newId().suffix(6))").userId
            for deleteFirst in [true, false] {
                let deletedAt = Date(timeIntervalSince1970: 1_767_225_600)
                let again = APIEventType(
                    id: newId(), userId: user, fields: EventTypeFields(name: "Again \(newId().suffix(6))"),
                    createdAt: deletedAt.addingTimeInterval(1800))
                let recreatedAt = deletedAt.addingTimeInterval(3600)
                if deleteFirst {
                    #expect(try await delete(again.id, at: deletedAt) == .applied)
                    #expect(try await version(again, at: recreatedAt) == .applied, "created after the delete")
                } else {
                    #expect(try await version(again, at: recreatedAt) == .applied)
                    #expect(try await delete(again.id, at: deletedAt) == .kept, "created after the delete")
                }
                #expect(try await client.fetchEntity(.eventType, id: again.id) != nil, "deleteFirst: \(deleteFirst)")
            }
        },
        check(
            "N1 api-v1 §7 §15.1 a create or a batch sent again with the time it was queued is created then: a delete "
                + "given back from between that time and the re-send ends it, so does one remembered already; its own "
                + "version given back with a field changed since is kept; a first send's creates stay"
        ) { subject in
            let client = subject.client
            // The server's clock, read from a first send; the re-sends were queued two hours before it, and another
            // device's delete of what their first sends created, made an hour later, is given back now.
            let plain = try await eventType(client, name: "Plain \(newId().suffix(6))")
            let now = try #require(plain.createdAt)
            let (queuedAt, deletedAt) = (now.addingTimeInterval(-7200), now.addingTimeInterval(-3600))
            let dated = try await client.create(
                CreateEventTypeRequest(id: newId(), name: "Dated \(newId().suffix(6))", color: "#8B4513", icon: "cup"),
                idempotencyKey: key(), queuedAt: queuedAt)
            let event = event(id: UUIDv7.generate(at: queuedAt), type: plain.id, at: queuedAt)
            let batch = try await client.createEventsBatch([event], idempotencyKey: key(), queuedAt: queuedAt)
            #expect(batch.created.map(\.id) == [event.id?.lowercased()])
            // Created when queued, as the answers say (the client says how long ago, measured on its own clock: over
            // the network the server's time of it differs by the request's own time); the version they carry is the
            // one the server holds now.
            for created in [dated.createdAt, batch.created.first?.createdAt] {
                #expect(Self.near(created, queuedAt), "\(String(describing: created)) for \(queuedAt)")
            }
            let own = try await client.giveBack([item(dated, .eventType, at: try #require(dated.updatedAt))])
            #expect(own.results.first?.outcome == .kept, "the device's own version")
            var byHand = dated
            byHand.color = "#123456"
            let handEdited = try await client.giveBack([item(byHand, .eventType, at: try #require(dated.updatedAt))])
            #expect(handEdited.results.first?.outcome == .kept, "a version the server holds lost nothing")
            let answer = try await client.giveBack(
                [(.event, event.id ?? ""), (.eventType, dated.id), (.eventType, plain.id)].map { type, id in
                    GiveBackItem(entityType: type, id: id, acknowledgedAt: deletedAt, deleted: true, data: nil)
                })
            let outcomes = Dictionary(uniqueKeysWithValues: answer.results.map { ($0.id, $0.outcome) })
            #expect(outcomes == [event.id?.lowercased() ?? "": .applied, dated.id: .applied, plain.id: .kept])
            #expect(try await client.fetchEntity(.event, id: event.id ?? "") == nil, "ended by the delete")
            #expect(try await client.fetchEntity(.eventType, id: dated.id) == nil, "ended by the delete")
            #expect(try await client.fetchEntity(.eventType, id: plain.id) != nil, "created after the delete")

            // A delete the server remembers, made after the create was queued (here of an id it never held:
            // api-v1 §6.6), ended that incarnation too: the re-send is created and deleted again, both in the feed.
            let ended = newId()
            _ = try? await client.deleteEntity(.eventType, id: ended)
            let start = try await client.getLatestPosition()
            let again = try await client.create(
                CreateEventTypeRequest(id: ended, name: "Ended \(newId().suffix(6))", color: "#8B4513", icon: "cup"),
                idempotencyKey: key(), queuedAt: queuedAt)
            #expect(again.id == ended && Self.near(again.createdAt, queuedAt))
            #expect(try await client.fetchEntity(.eventType, id: ended) == nil, "the remembered delete ended it")
            let entries = try await changesAfter(start.cursor, client).filter { $0.entityId == ended }
            #expect(entries.map(\.operation) == ["create", "delete"])
        },
        check(
            "N14 api-v1 §6.6 a delete answers the time the server recorded for it, the feed's deleted_at; a repeated one's 404 "
                + "deleted says the same time"
        ) { subject in
            let client = subject.client
            let type = try await eventType(client, name: "Deleted \(newId().suffix(6))")
            let before = try await client.getLatestPosition()
            let deletedAt = try #require(try await client.deleteEntity(.eventType, id: type.id), "the server says")
            let entry = try await client.getChanges(since: before, limit: 10).changes.last
            #expect(entry?.entityId == type.id && entry?.knownOperation == .delete)
            #expect(entry?.deletedAt == deletedAt, "the time the feed carries")
            let repeated = await expectFailure(404, "deleted") {
                _ = try await client.deleteEntity(.eventType, id: type.id)
            }
            #expect(repeated?.deletedAt == deletedAt)
        },
        check(
            "api-v1 §6.6 a DELETE of an id never known answers 404 not_found and remembers the delete: a give-back of an "
                + "older version finds it deleted"
        ) { subject in
            let client = subject.client
            let held = try await eventType(client, name: "Known \(newId().suffix(6))")
            let lost = newId()
            let first = await expectFailure(404, "not_found") {
                _ = try await client.deleteEntity(.eventType, id: lost)
            }
            let again = await expectFailure(404, "deleted") { _ = try await client.deleteEntity(.eventType, id: lost) }
            #expect(again?.deletedAt != nil)
            #expect(first?.deletedAt == again?.deletedAt, "the first 404 says when the delete is remembered")
            let older = APIEventType(
                id: lost, userId: held.userId, fields: EventTypeFields(name: "Lost \(newId().suffix(6))"),
                createdAt: instant(0))
            let given = try await client.giveBack([item(older, .eventType, at: instant(0))])
            #expect(given.results.first?.outcome == .deleted)
            #expect(try await client.fetchEntity(.eventType, id: lost) == nil)
        },
        check("N12 api-v1 §6.3 the entry a give-back writes clears what the version given back clears: explicit nulls")
        {
            subject in
            let client = subject.client
            let type = try await eventType(client)
            let created = try await client.createEventWithIdempotency(
                NetworkClientContract.event(type: type.id, at: instant(7)) { $0.notes = "to clear" },
                idempotencyKey: key())
            let before = try await client.getLatestCursor()
            var cleared = created
            cleared.notes = nil
            let later = try #require(created.updatedAt).addingTimeInterval(60)
            #expect(try await client.giveBack([item(cleared, .event, at: later)]).results.first?.outcome == .applied)
            let page = try await client.getChanges(since: before, limit: 10)
            let entry = try #require(page.changes.last { $0.entityId.lowercased() == created.id.lowercased() })
            #expect(entry.data?["notes"] == .null, "the cleared notes, as null: \(String(describing: entry.data))")
            #expect(entry.data?["event_type"] == nil)
        },
        check(
            "N12 api-v1 §15.1 members given back as pending count from when they arrived, not with the version; on a row the server holds, its values stay"
        ) { subject in
            let client = subject.client
            let user = try await eventType(client, name: "Owner \(newId().suffix(6))").userId
            // Days in 2023: before the time of any server, the in-memory one's clock included.
            func at(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(day) * 86_400) }
            var lost = APIEventType(
                id: newId(), userId: user, fields: EventTypeFields(name: "Lost \(newId().suffix(6))"),
                createdAt: at(1), updatedAt: at(1))
            lost.color = "#AA0000"  // an edit the giving device holds queued
            var created = item(lost, .eventType, at: at(1))
            created.pending = ["color"]
            #expect(try await client.giveBack([created]).results.first?.outcome == .applied)
            // Another device's version, acknowledged after the first one, before the queued edit arrived.
            var other = lost
            (other.color, other.icon) = ("#000000", "star")
            #expect(try await client.giveBack([item(other, .eventType, at: at(2))]).results.first?.outcome == .applied)
            guard case .eventType(let merged)? = try await client.fetchEntity(.eventType, id: lost.id) else {
                Issue.record("the type given back")
                return
            }
            #expect(merged.color == "#AA0000", "the queued colour arrived after the version of day 2")
            #expect(merged.icon == "star", "the icon of day 2 is taken")

            var mine = merged
            (mine.color, mine.name) = ("#00BB00", "Renamed \(newId().suffix(6))")
            var held = item(mine, .eventType, at: at(3))
            held.pending = ["color"]
            #expect(try await client.giveBack([held]).results.first?.outcome == .applied)
            guard case .eventType(let after)? = try await client.fetchEntity(.eventType, id: lost.id) else {
                Issue.record("the type given back")
                return
            }
            #expect(after.name == mine.name, "the acknowledged name is taken")
            #expect(after.color == "#AA0000", "the pending colour is the device's to push: the server's stays")
        },
    ]

    /// The entity as a give-back item, its REST object as the server emits it.
    static func item(
        _ entity: some Encodable, _ type: MutationEntityType, at acknowledged: Date
    ) -> GiveBackItem {
        let data = (try? JSONCoding.encode(entity)).flatMap { try? JSONText.parse(Array($0)) }
        let id = data?["id"]?.stringValue?.lowercased() ?? ""
        return GiveBackItem(entityType: type, id: id, acknowledgedAt: acknowledged, deleted: false, data: data)
    }
}

extension NetworkClientContract {
    /// Whether `time` is `expected` within what a request takes on loopback: a create sent again says how long it was
    /// queued, which the server turns into a time of its own clock when the request arrives (api-v1 §7).
    static func near(_ time: Date?, _ expected: Date) -> Bool {
        guard let time else { return false }
        return abs(time.millisecondsSince1970 - expected.millisecondsSince1970) <= 2_000
    }
}
