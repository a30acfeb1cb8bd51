import Foundation
import Models
import Protocols
import Sync
import TestSupport
import Testing

/// Field-level merge (sync-engine R1–R3): an update carries what the edit changed, queued edits merge key by key,
/// and server data arriving under a queued update is rebased, so that two devices editing different fields of one
/// entity both keep their edit.
@Suite("Field-level merge")
struct FieldMergeTests {
    static let mood = PropertyValue(type: .text, value: "calm")
    static let km = PropertyValue(type: .number, value: 5)

    /// A synced event with notes, a location and two properties.
    func syncedEvent(_ h: SyncHarness) async throws -> Event {
        let type = try await h.syncedType()
        let event = try await h.event(type, 1) {
            $0.notes = "first"
            $0.details.locationName = "Park"
            $0.properties = ["mood": Self.mood, "km": Self.km]
        }
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        return event
    }

    func updateBodies(_ h: SyncHarness) -> [JSONValue?] {
        h.network.calls(of: .updateEventWithIdempotency).map(\.body)
    }

    @Test("R1 an update sends only the keys the edit changed; an edit that changes nothing queues nothing")
    func onlyChangedKeys() async throws {
        let h = try SyncHarness()
        let event = try await syncedEvent(h)
        _ = try await h.events.updateEvent(id: event.id) { $0.notes = "first" }
        #expect(try h.queue().isEmpty, "R1 a no-op edit writes no mutation")

        _ = try await h.events.updateEvent(id: event.id) {
            $0.notes = "second"
            $0.details.locationName = nil
            $0.properties["mood"] = nil
        }
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(
            updateBodies(h) == [["notes": "second", "location_name": .null, "properties_patch": ["mood": .null]]],
            "R1 the changed keys, a cleared field as null, a removed property as null in properties_patch")
        let stored = try #require(h.serverEvents.first { $0.id == event.id })
        #expect(stored.notes == "second" && stored.locationName == nil && stored.properties == ["km": Self.km])
    }

    @Test("R2 edits queued before a push merge key by key into one update: the later value of a key wins")
    func queuedEditsMerge() async throws {
        let h = try SyncHarness()
        let event = try await syncedEvent(h)
        _ = try await h.events.updateEvent(id: event.id) { $0.notes = "one" }
        _ = try await h.events.updateEvent(id: event.id) {
            $0.properties["km"] = PropertyValue(type: .number, value: 7)
        }
        _ = try await h.events.updateEvent(id: event.id) {
            $0.notes = "two"
            $0.isAllDay = true
        }
        let queued = try h.mutations(of: event.id)
        #expect(queued.count == 1, "R2 one update per entity")
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(
            updateBodies(h) == [
                ["notes": "two", "is_all_day": true, "properties_patch": ["km": ["type": "number", "value": 7]]]
            ])
    }

    @Test("R2 an edit made while its update is in flight stays queued with only what the answer did not carry")
    func editDuringFlight() async throws {
        let h = try SyncHarness()
        let event = try await syncedEvent(h)
        _ = try await h.events.updateEvent(id: event.id) {
            $0.notes = "in flight"
            $0.properties["mood"] = PropertyValue(type: .text, value: "tired")
        }
        h.network.resetCalls()
        let gate = h.network.hold(.updateEventWithIdempotency)
        let sync = Task { await h.engine.performSync() }
        await gate.waitForArrivals(1)
        // Same key with a new value, a key the flight does not carry, and a property the flight sets again.
        _ = try await h.events.updateEvent(id: event.id) {
            $0.notes = "after"
            $0.isAllDay = true
        }
        h.network.stopHolding(.updateEventWithIdempotency)
        gate.release()
        _ = await sync.value

        #expect(
            updateBodies(h).first == [
                "notes": "in flight", "properties_patch": ["mood": ["type": "text", "value": "tired"]],
            ])
        let left = try h.mutations(of: event.id)
        if let payload = left.first?.payload {
            // R2: the acknowledged keys with the same value are gone; notes (changed since) and is_all_day stay.
            #expect(try JSONCoding.decode(JSONValue.self, from: payload) == ["notes": "after", "is_all_day": true])
        }
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        let stored = try #require(h.serverEvents.first { $0.id == event.id })
        #expect(stored.notes == "after" && stored.isAllDay && stored.properties["mood"]?.value == "tired")
        #expect(try h.events.event(id: event.id)?.notes == "after")
    }

    @Test("R1 against a server without properties_patch the update carries the whole map, read from the row")
    func wholeMapForTheOriginal() async throws {
        let h = try SyncHarness()
        let event = try await syncedEvent(h)
        h.network.announce(ServerFeatures([ServerFeatures.after]))
        _ = try await h.events.updateEvent(id: event.id) { $0.properties["mood"] = nil }
        h.network.resetCalls()
        #expect(await h.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(updateBodies(h) == [["properties": ["km": ["type": "number", "value": 5]]]])
        #expect(h.serverEvents.first { $0.id == event.id }?.properties == ["km": Self.km])
    }

    @Test("R1 R3 two devices edit different fields and properties of one event: every device and the server keep both")
    func twoDevicesDifferentFields() async throws {
        let a = try SyncHarness()
        let event = try await syncedEvent(a)
        let b = try a.secondDevice()
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: true))

        _ = try await a.events.updateEvent(id: event.id) {
            $0.notes = "notes from a"
            $0.properties["a"] = PropertyValue(type: .text, value: "from a")
        }
        _ = try await b.events.updateEvent(id: event.id) {
            $0.details.locationName = "Lake"
            $0.properties["b"] = PropertyValue(type: .text, value: "from b")
            $0.properties["km"] = nil
        }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        // a pulls b's entry while its own update is queued: rebased (R3), a's edit over b's row.
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))

        let expected: [String: PropertyValue] = [
            "mood": Self.mood, "a": PropertyValue(type: .text, value: "from a"),
            "b": PropertyValue(type: .text, value: "from b"),
        ]
        let stored = try #require(a.serverEvents.first { $0.id == event.id })
        #expect(stored.notes == "notes from a" && stored.locationName == "Lake" && stored.properties == expected)
        for device in [a, b] {
            let row = try #require(try device.events.event(id: event.id))
            #expect(row.notes == "notes from a" && row.details.locationName == "Lake" && row.properties == expected)
            #expect(try row.syncStatus == .synced && device.owed().isEmpty)
        }
    }

    /// Proof seeds 353, 381 and 684 of the first 1000-seed run with the field ledger: a's colour reached the server
    /// but its answer was lost; b's later colour landed on top; a's icon edit then merged into the queued update
    /// under a new key, and the merged body set a's old colour again — over b's acknowledged write.
    @Test("R2 R5 an update whose answer was lost is re-sent as it went before a later edit merged into it")
    func lostAnswerThenMerge() async throws {
        let (a, b, type) = try await twoDevices()

        _ = try await a.events.updateEventType(id: type.id) { $0.color = "#aa0000" }
        a.network.enqueue(.transport("the connection closed without an answer"), for: .updateEventTypeWithIdempotency)
        #expect(await a.engine.performSync().outcome == .offline("the connection closed without an answer"))
        // The send went out and the server committed it; only the answer was lost.
        let sent = try #require(try a.mutations(of: type.id).first)
        #expect(sent.sentKey == sent.clientRequestId && sent.sentPayload == sent.payload, "the claim kept the send")
        let sentBody = try JSONCoding.decode(UpdateEventTypeRequest.self, from: try #require(sent.payload))
        _ = try await a.network.updateEventTypeWithIdempotency(
            id: type.id, sentBody, idempotencyKey: sent.clientRequestId)

        _ = try await b.events.updateEventType(id: type.id) { $0.color = "#00bb00" }
        #expect(await b.engine.performSync().outcome == .synced(bootstrapped: false))
        _ = try await a.events.updateEventType(id: type.id) { $0.icon = "mug" }
        let merged = try #require(try a.mutations(of: type.id).first)
        #expect(merged.clientRequestId != sent.clientRequestId && merged.sentKey == sent.clientRequestId)

        a.network.resetCalls()
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        let updates = a.network.calls(of: .updateEventTypeWithIdempotency)
        // R2 R5: first the lost send again under its key (the server replays it), then only what it did not carry.
        #expect(updates.map(\.idempotencyKey).first == sent.clientRequestId && updates.count == 2)
        #expect(updates.last?.body == ["icon": "mug"], "the merged colour left the patch with the acknowledged send")
        let server = try #require(a.serverEventTypes.first { $0.id == type.id })
        #expect(server.color == "#00bb00" && server.icon == "mug", "b's later colour stands")
        let row = try #require(try a.events.eventType(id: type.id))
        #expect(row.color == "#00bb00" && row.icon == "mug" && row.syncStatus == .synced)
        #expect(try a.mutations(of: type.id).isEmpty && a.owed().isEmpty)
    }

    @Test("R2 a lost send is re-sent first also when the server never got it: then it is applied, and the rest follows")
    func lostSendNeverCommitted() async throws {
        let a = try SyncHarness()
        let type = try await a.syncedType()
        _ = try await a.events.updateEventType(id: type.id) { $0.color = "#aa0000" }
        a.network.enqueue(.transport("connection lost"), for: .updateEventTypeWithIdempotency)
        _ = await a.engine.performSync()
        _ = try await a.events.updateEventType(id: type.id) { $0.icon = "mug" }
        // A 5xx to the re-sent lost send says nothing about it: it stays, and the row pays an attempt.
        a.network.enqueue(http(503), for: .updateEventTypeWithIdempotency)
        #expect(await a.engine.performSync().outcome == .partial(bootstrapped: false))
        let waiting = try #require(try a.mutations(of: type.id).first)
        #expect(waiting.attempts == 1 && waiting.sentKey != nil && waiting.sentKey != waiting.clientRequestId)

        a.network.resetCalls()
        #expect(await a.engine.performSync().outcome == .synced(bootstrapped: false))
        #expect(
            a.network.calls(of: .updateEventTypeWithIdempotency).map(\.body) == [["color": "#aa0000"], ["icon": "mug"]])
        let server = try #require(a.serverEventTypes.first { $0.id == type.id })
        #expect(server.color == "#aa0000" && server.icon == "mug")
        #expect(try a.mutations(of: type.id).isEmpty)
    }

}
