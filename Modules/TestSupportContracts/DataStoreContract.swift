import Foundation
import Models
import Protocols
import TestSupport
import Testing

/// The `DataStoreProtocol` contract (sync-engine §1.3–§1.10, §2.4–§2.6), as named checks any conformer can run.
///
/// Run it from a parameterized test; each check shows up by name:
///
/// ```swift
/// @Test(arguments: DataStoreContract.checks)
/// func contract(_ check: DataStoreContract.Check) throws {
///     try check.run { clock in try DefaultDataStoreFactory(.inMemory, clock: clock) }
/// }
/// ```
///
/// The factory must return a fresh unit of work per call whose placeholder rows read `clock`.
public enum DataStoreContract {
    /// One named check.
    public struct Check: Sendable, CustomTestStringConvertible {
        /// The rule it checks, citing the spec; what the test report shows.
        public let name: String
        let body: @Sendable (Subject) throws -> Void

        public var testDescription: String { name }

        /// Runs the check against a factory made for a new manual clock.
        public func run(_ makeFactory: (ManualClock) throws -> any DataStoreFactory) throws {
            let clock = ManualClock()
            try body(Subject(factory: try makeFactory(clock), clock: clock))
        }
    }

    struct Subject {
        let factory: any DataStoreFactory
        let clock: ManualClock

        /// Runs `body` on a fresh store and saves it.
        @discardableResult
        func saved<T>(_ body: (any DataStoreProtocol) throws -> T) throws -> T { try factory.saved(body) }

        /// Reads through a fresh store (and commits the read transaction).
        func read<T>(_ body: (any DataStoreProtocol) throws -> T) throws -> T { try saved(body) }

        var now: Date { clock.now() }
    }

    static func check(_ name: String, _ body: @escaping @Sendable (Subject) throws -> Void) -> Check {
        Check(name: name, body: body)
    }

    /// Every check, to pass as a parameterized test's arguments.
    public static let checks: [Check] =
        entityChecks + unitOfWorkChecks + coalescingChecks + outboxChecks + engineChecks + revision3Checks
}

// MARK: - Entities

extension DataStoreContract {
    static let entityChecks: [Check] = [
        check("insert writes a new row exactly as given, its pending status included") { subject in
            let type = Build.eventType()
            let event = Build.event(notes: "n", properties: ["strength": PropertyValue(type: .number, value: 3)])
            let fence = Build.geofence(eventTypeEntryId: type.id)
            let definition = Build.propertyDefinition()
            try subject.saved { store throws in
                try store.insertEventType(type)
                try store.insertEvent(event)
                try store.insertGeofence(fence)
                try store.insertPropertyDefinition(definition)
            }
            try subject.read { store throws in
                #expect(try store.findEventType(id: type.id) == type && store.findEvent(id: event.id) == event)
                #expect(try store.findGeofence(id: fence.id) == fence)
                #expect(try store.findPropertyDefinition(id: definition.id) == definition)
                #expect(try store.findEvent(id: event.id)?.syncStatus == .pending)
            }
        },
        check("every optional event field (EventDetails.fields) is stored and read back, and nil clears it") {
            subject in
            let event = Build.event { $0.details = Build.everyDetail }
            try subject.saved { store throws in try store.insertEvent(event) }
            try subject.read { store throws in #expect(try store.findEvent(id: event.id) == event) }
            try subject.saved { store throws in
                try store.upsertEvent(id: event.id) { $0.details = EventDetails() }
            }
            try subject.read { store throws in #expect(try store.findEvent(id: event.id)?.details.isEmpty == true) }
        },
        check("every field of the type, geofence and definition tables is stored and read back") { subject in
            let type = EventType(
                id: Build.id(1), fields: Build.everyField(EventTypeFields.self), createdAt: Build.instant)
            let fence = Geofence(
                id: Build.id(200), fields: Build.everyField(GeofenceFields.self, reference: type.id),
                createdAt: Build.instant)
            let definition = PropertyDefinition(
                id: Build.id(300), eventTypeId: type.id, fields: Build.everyField(PropertyDefinitionFields.self),
                createdAt: Build.instant, updatedAt: Build.instant)
            try subject.saved { store throws in
                try store.insertEventType(type)
                try store.insertGeofence(fence)
                try store.insertPropertyDefinition(definition)
            }
            try subject.read { store throws in
                #expect(try store.findEventType(id: type.id) == type)
                #expect(try store.findGeofence(id: fence.id) == fence)
                #expect(try store.findPropertyDefinition(id: definition.id) == definition)
            }
        },
        check("keyset pages of events, oldest or newest first, hold every event once, equal times by id") { subject in
            // Seven events over four instants: pairs share a time, so the id orders them.
            let events = (0..<7).map { number in
                Build.event(id: Build.id(400 + number), timestamp: Build.instant.addingTimeInterval(Double(number / 2)))
            }
            try subject.saved { store throws in
                try store.insertEventType(Build.eventType())
                for event in events.shuffled() { try store.insertEvent(event) }
            }
            for oldestFirst in [true, false] {
                var seen: [String] = []
                var after: EventPosition?
                try subject.read { store throws in
                    while true {
                        let page = try store.fetchEvents(
                            matching: EventQuery(limit: 3, oldestFirst: oldestFirst, after: after))
                        guard let last = page.last else { break }
                        seen += page.map(\.id)
                        after = EventPosition(last)
                    }
                }
                let expected = events.map(\.id)
                #expect(seen == (oldestFirst ? expected : expected.reversed()), "oldest first: \(oldestFirst)")
            }
        },
        check("insert of a taken id throws alreadyExists and rolls back the unit of work") { subject in
            try subject.saved { store throws in try store.insertEventType(Build.eventType(syncStatus: .synced)) }
            let store = subject.factory.makeDataStore()
            try store.insertEvent(Build.event())
            #expect(throws: DataStoreError.alreadyExists(.eventType, id: Build.id(1))) {
                try store.insertEventType(Build.eventType(name: "Other"))
            }
            try store.save()
            try subject.read { store throws in
                #expect(try store.findEvent(id: Build.id(100)) == nil, "the failed insert rolled back the event")
                #expect(try store.findEventType(id: Build.id(1))?.name == "Coffee")
            }
        },
        check("S4 upsert of an unknown id inserts placeholders, applies configure and ends synced") { subject in
            let now = subject.now.roundedToMilliseconds
            try subject.saved { store throws in
                let event = try store.upsertEvent(id: Build.id(1)) { $0.notes = "set" }
                #expect(event.eventTypeId == "" && event.timestamp == now && event.notes == "set")
                #expect(event.sourceType == .manual && event.properties.isEmpty && event.syncStatus == .synced)
                let type = try store.upsertEventType(id: Build.id(2)) { _ in }
                #expect(type.name == "Placeholder" && type.color == "#007AFF" && type.icon == "circle.fill")
                #expect(type.createdAt == now && type.syncStatus == .synced)
                let fence = try store.upsertGeofence(id: Build.id(3)) { _ in }
                #expect(fence.name == "Placeholder" && fence.latitude == 0 && fence.radius == 100 && fence.isActive)
                #expect(!fence.notifyOnEntry && !fence.notifyOnExit && fence.syncStatus == .synced)
                let definition = try store.upsertPropertyDefinition(id: Build.id(4), eventTypeId: Build.id(2)) { _ in }
                #expect(definition.eventTypeId == Build.id(2) && definition.key == "placeholder")
                #expect(definition.label == "Placeholder" && definition.propertyType == .text)
                #expect(definition.options.isEmpty && definition.displayOrder == 0 && definition.syncStatus == .synced)
            }
            try subject.read { store throws in
                #expect(try store.findEvent(id: Build.id(1))?.notes == "set")
                // S4: An upsert of an unknown id inserts the sync-engine §1.4 placeholders, applies configure, and
                // leaves the row…
                #expect(try store.findEventType(id: Build.id(2))?.syncStatus == .synced)
                #expect(try store.findGeofence(id: Build.id(3)) != nil)
                #expect(try store.findPropertyDefinition(id: Build.id(4))?.eventTypeId == Build.id(2))
            }
        },
        check("upsert of an existing row applies configure to the stored values and ends synced") { subject in
            let stored = Build.event(notes: "old") {
                $0.locationLatitude = 1.5
                $0.locationLongitude = 2.5
                $0.properties = ["mood": PropertyValue(type: .text, value: "ok")]
                $0.syncStatus = .failed
            }
            try subject.saved { store throws in
                try store.upsertEvent(id: stored.id) { $0 = stored }
                try store.setSyncStatus(.failed, entityType: .event, id: stored.id)
            }
            let updated = try subject.saved { store throws in
                try store.upsertEvent(id: stored.id) { event in
                    #expect(event.notes == "old" && event.syncStatus == .failed)
                    event.notes = nil
                }
            }
            var expected = stored
            expected.notes = nil
            expected.syncStatus = .synced
            #expect(updated == expected)
            #expect(try subject.read { try $0.findEvent(id: stored.id) } == expected)
        },
        check("find returns nil for a missing id and fetchAll returns every stored row") { subject in
            try subject.saved { store throws in
                for number in 1...3 {
                    try store.upsertEventType(id: Build.id(number)) { $0 = Build.eventType(id: Build.id(number)) }
                    try store.upsertGeofence(id: Build.id(10 + number)) {
                        $0 = Build.geofence(id: Build.id(10 + number), name: "Fence \(number)")
                    }
                }
                try store.upsertEvent(id: Build.id(20)) { $0 = Build.event(id: Build.id(20)) }
                try store.upsertPropertyDefinition(id: Build.id(30), eventTypeId: Build.id(1)) { _ in }
            }
            try subject.read { store throws in
                #expect(try store.findEvent(id: Build.id(99)) == nil)
                #expect(try store.findEventType(id: Build.id(99)) == nil)
                #expect(try store.findGeofence(id: Build.id(99)) == nil)
                #expect(try store.findPropertyDefinition(id: Build.id(99)) == nil)
                #expect(Set(try store.fetchAllEventTypes().map(\.id)) == [Build.id(1), Build.id(2), Build.id(3)])
                #expect(Set(try store.fetchAllGeofences().map(\.id)) == [Build.id(11), Build.id(12), Build.id(13)])
                #expect(try store.fetchAllEvents().map(\.id) == [Build.id(20)])
                #expect(try store.fetchAllPropertyDefinitions().map(\.id) == [Build.id(30)])
            }
        },
        check("S5 deleting a missing row is a no-op and marking a missing row synced throws notFound") { subject in
            try subject.saved { store throws in
                try store.deleteEvent(id: Build.id(1))
                try store.deleteEventType(id: Build.id(1))
                try store.deleteGeofence(id: Build.id(1))
                try store.deletePropertyDefinition(id: Build.id(1))
                try store.upsertEvent(id: Build.id(2)) { _ in }
                try store.setSyncStatus(.pending, entityType: .event, id: Build.id(2))
                try store.markEventSynced(id: Build.id(2))
                #expect(try store.findEvent(id: Build.id(2))?.syncStatus == .synced)
            }
            let missing = Build.id(77)
            #expect(throws: DataStoreError.notFound(.event, id: missing)) {
                try subject.saved { try $0.markEventSynced(id: missing) }
            }
            #expect(throws: DataStoreError.notFound(.eventType, id: missing)) {
                try subject.saved { try $0.markEventTypeSynced(id: missing) }
            }
            #expect(throws: DataStoreError.notFound(.geofence, id: missing)) {
                try subject.saved { try $0.markGeofenceSynced(id: missing) }
            }
            // S5: Deleting a missing row is a no-op; marking a missing row synced throws notFound.
            #expect(throws: DataStoreError.notFound(.propertyDefinition, id: missing)) {
                try subject.saved { try $0.markPropertyDefinitionSynced(id: missing) }
            }
        },
        check("S6 deleting an event type cascades to its children except those with a create mutation") { subject in
            let type = Build.id(1)
            let other = Build.id(2)
            try subject.saved { store throws in
                try store.upsertEventType(id: type) { _ in }
                try store.upsertEventType(id: other) { _ in }
                for (number, typeId) in [(10, type), (11, type), (12, other)] {
                    try store.upsertEvent(id: Build.id(number)) { $0.eventTypeId = typeId }
                }
                try store.upsertPropertyDefinition(id: Build.id(20), eventTypeId: type) { _ in }
                try store.upsertPropertyDefinition(id: Build.id(21), eventTypeId: type) { _ in }
                try store.upsertGeofence(id: Build.id(30)) {
                    $0.eventTypeEntryId = type
                    $0.eventTypeExitId = type
                }
                try store.upsertGeofence(id: Build.id(31)) { $0.eventTypeExitId = other }
                // Children whose content exists only locally survive as orphans.
                try store.insertPendingMutation(Build.mutation(.create, of: .event, entityId: Build.id(11)))
                try store.insertPendingMutation(
                    Build.mutation(.create, of: .propertyDefinition, entityId: Build.id(21)))
            }
            try subject.saved { try $0.deleteEventType(id: type) }
            try subject.read { store throws in
                #expect(try store.findEventType(id: type) == nil)
                #expect(Set(try store.fetchAllEvents().map(\.id)) == [Build.id(11), Build.id(12)])
                #expect(try store.fetchAllPropertyDefinitions().map(\.id) == [Build.id(21)])
                let cleared = try #require(try store.findGeofence(id: Build.id(30)))
                #expect(cleared.eventTypeEntryId == nil && cleared.eventTypeExitId == nil)
                // S6: Deleting an event type row deletes, in the same transaction, its events and property…
                #expect(try store.findGeofence(id: Build.id(31))?.eventTypeExitId == other)
                #expect(try store.fetchPendingMutations().count == 2, "mutations are never touched")
            }
        },
        check("S6 deleting a geofence clears geofence_id on its events") { subject in
            try subject.saved { store throws in
                try store.upsertGeofence(id: Build.id(1)) { _ in }
                try store.upsertEvent(id: Build.id(10)) { $0.geofenceId = Build.id(1) }
                try store.upsertEvent(id: Build.id(11)) { $0.geofenceId = Build.id(2) }
            }
            try subject.saved { try $0.deleteGeofence(id: Build.id(1)) }
            try subject.read { store throws in
                #expect(try store.findGeofence(id: Build.id(1)) == nil)
                #expect(try store.findEvent(id: Build.id(10))?.geofenceId == nil)
                // S6: Deleting an event type row deletes, in the same transaction, its events and property…
                #expect(try store.findEvent(id: Build.id(11))?.geofenceId == Build.id(2))
            }
        },
        check("bulk deletes empty one table each and do not cascade") { subject in
            try subject.saved { store throws in
                try store.upsertEventType(id: Build.id(1)) { _ in }
                try store.upsertEvent(id: Build.id(2)) { $0.eventTypeId = Build.id(1) }
                try store.upsertGeofence(id: Build.id(3)) { $0.eventTypeEntryId = Build.id(1) }
                try store.upsertPropertyDefinition(id: Build.id(4), eventTypeId: Build.id(1)) { _ in }
            }
            try subject.saved { try $0.deleteAllEventTypes() }
            try subject.read { store throws in
                #expect(try store.fetchAllEventTypes().isEmpty)
                #expect(try store.fetchAllEvents().count == 1)
                #expect(try store.findGeofence(id: Build.id(3))?.eventTypeEntryId == Build.id(1))
                #expect(try store.fetchAllPropertyDefinitions().count == 1)
            }
            try subject.saved { store throws in
                try store.deleteAllEvents()
                try store.deleteAllGeofences()
                try store.deleteAllPropertyDefinitions()
            }
            try subject.read { store throws in
                #expect(try store.fetchAllEvents().isEmpty && store.fetchAllGeofences().isEmpty)
                #expect(try store.fetchAllPropertyDefinitions().isEmpty)
            }
        },
    ]
}

// MARK: - Unit of work

extension DataStoreContract {
    static let unitOfWorkChecks: [Check] = [
        check("unit of work: saved writes are visible to the next store") { subject in
            try subject.saved { try $0.upsertEventType(id: Build.id(1)) { $0.name = "Run" } }
            #expect(try subject.read { try $0.findEventType(id: Build.id(1))?.name } == "Run")
        },
        check("unit of work: a store released without save rolls back") { subject in
            do {
                let store = subject.factory.makeDataStore()
                try store.upsertEventType(id: Build.id(1)) { _ in }
                _ = try store.enqueueMutation(
                    entityType: .eventType, operation: .create, entityId: Build.id(1),
                    payload: try MutationPayload.create(Build.eventType()), at: subject.now)
                #expect(try store.findEventType(id: Build.id(1)) != nil, "a store sees its own writes")
            }
            try subject.read { store throws in
                #expect(try store.findEventType(id: Build.id(1)) == nil)
                #expect(try store.fetchPendingMutations().isEmpty)
            }
        },
        check("unit of work: save commits, and later work on the same store is a new transaction") { subject in
            do {
                let store = subject.factory.makeDataStore()
                try store.upsertEventType(id: Build.id(1)) { _ in }
                try store.save()
                try store.upsertEventType(id: Build.id(2)) { _ in }
            }
            try subject.read { store throws in
                #expect(try store.findEventType(id: Build.id(1)) != nil)
                #expect(try store.findEventType(id: Build.id(2)) == nil)
            }
        },
        check("unit of work: a throwing operation rolls back everything since the last save") { subject in
            let deleted = Build.id(9)
            try subject.saved { store throws in
                _ = try store.enqueueMutation(
                    entityType: .event, operation: .delete, entityId: deleted, payload: nil, at: subject.now)
            }
            let store = subject.factory.makeDataStore()
            try store.upsertEventType(id: Build.id(1)) { _ in }
            try store.save()
            try store.upsertEventType(id: Build.id(2)) { _ in }
            #expect(throws: DataStoreError.entityDeleted(.event, entityId: deleted)) {
                try store.enqueueMutation(
                    entityType: .event, operation: .update, entityId: deleted, payload: Data("{}".utf8),
                    at: subject.now)
            }
            #expect(try store.findEventType(id: Build.id(2)) == nil, "the failed transaction was rolled back")
            try store.upsertEventType(id: Build.id(3)) { _ in }
            try store.save()
            try subject.read { reader throws in
                #expect(Set(try reader.fetchAllEventTypes().map(\.id)) == [Build.id(1), Build.id(3)])
            }
        },
        check("S7 an entity write and its mutation commit together or not at all") { subject in
            let event = Build.event(id: Build.id(5))
            try subject.saved { store throws in
                try store.upsertEvent(id: event.id) { $0 = event }
                try store.setSyncStatus(.pending, entityType: .event, id: event.id)
                #expect(
                    try store.enqueueMutation(
                        entityType: .event, operation: .create, entityId: event.id,
                        payload: try MutationPayload.create(event), at: subject.now) == .inserted)
            }
            try subject.read { store throws in
                #expect(try store.findEvent(id: event.id)?.syncStatus == .pending)
                #expect(try store.fetchPendingMutations().map(\.entityId) == [event.id])
            }
            // A second write whose enqueue is refused leaves neither change behind.
            let store = subject.factory.makeDataStore()
            try store.upsertEvent(id: event.id) { $0.notes = "lost" }
            // S7: A local create, update or delete and its mutation commit in one transaction; if either write fails…
            #expect(throws: DataStoreError.self) {
                try store.enqueueMutation(
                    entityType: .event, operation: .create, entityId: event.id, payload: nil, at: subject.now)
            }
            try store.save()
            try subject.read { reader throws in
                #expect(try reader.findEvent(id: event.id)?.notes == nil)
                #expect(try reader.fetchPendingMutations().count == 1)
            }
        },
    ]
}
