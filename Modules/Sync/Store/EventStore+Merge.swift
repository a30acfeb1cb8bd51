import Foundation
import Models
import Protocols

/// What `mergeEventType` moved.
public struct EventTypeMerge: Sendable, Equatable {
    /// Events moved to the target.
    public var events: Int
    /// Definitions copied to the target (a key it already had is not copied: the target's definition serves).
    public var propertyDefinitions: Int
    /// Geofences whose entry or exit type now names the target.
    public var geofences: Int
}

extension EventStore {
    /// Moves everything of event type `source` into `target`, then deletes `source`, in one unit of work: its
    /// events (their properties keep their keys), its property definitions whose key `target` lacks (as new
    /// definitions of `target`), and the geofences that name it. For two devices that created one name offline:
    /// the server refused one device's type (`duplicate_name`, held by the other's), and the merge puts that
    /// device's data under the server's type and discards the refused create. Each move is an ordinary queued
    /// change; an event whose create was refused as well (a dead letter) is revived with its new type.
    @discardableResult
    public func mergeEventType(_ source: String, into target: String) async throws -> EventTypeMerge {
        try await write { store, now in
            guard source != target else {
                throw EventStoreError.invalid(field: "type", reason: "cannot be merged into itself")
            }
            guard try store.findEventType(id: source) != nil else {
                throw EventStoreError.notFound(.eventType, id: source)
            }
            guard try store.findEventType(id: target) != nil else {
                throw EventStoreError.notFound(.eventType, id: target)
            }
            let sourceEvents = try store.fetchEvents(matching: EventQuery(eventTypeId: source))
            try checkNoTimeClash(sourceEvents, with: try store.fetchEvents(matching: EventQuery(eventTypeId: target)))
            var merge = EventTypeMerge(events: 0, propertyDefinitions: 0, geofences: 0)
            var moved: [String] = []
            // Moved as any local edit is made (`update`): checked, queued as a patch, its `sync_status` unchanged
            // (sync-engine §1.3) — an event the server has not seen yet stays pending.
            for before in sourceEvents {
                let after: Event = try update(before.id, store, now) { $0.eventTypeId = target }
                guard after != before else { continue }
                moved.append(after.id)
                merge.events += 1
            }
            let definitions = try store.fetchAllPropertyDefinitions()
            let targetKeys = Set(definitions.filter { $0.eventTypeId == target }.map(\.key))
            for definition in definitions where definition.eventTypeId == source && !targetKeys.contains(definition.key)
            {
                var copy = definition
                copy.id = newId(now)
                copy.eventTypeId = target
                copy.createdAt = now
                copy.updatedAt = now
                try insert(copy, store, now)
                merge.propertyDefinitions += 1
            }
            for before in try store.fetchAllGeofences()
            where before.eventTypeEntryId == source || before.eventTypeExitId == source {
                let after: Geofence = try update(before.id, store, now) { fence in
                    if fence.eventTypeEntryId == source { fence.eventTypeEntryId = target }
                    if fence.eventTypeExitId == source { fence.eventTypeExitId = target }
                }
                guard after != before else { continue }
                moved.append(after.id)
                merge.geofences += 1
            }
            // The source's remaining children (its definitions) go with it, as in any type delete; a create the
            // server refused is withdrawn with the delete.
            try removeEventType(id: source, store, now)
            // A moved child whose create the server refused (its type did not exist there), or that the delete
            // above gave up on as naming its parent, goes out again, rebuilt from its row under `target`.
            for id in moved { try reviveRefusedCreate(of: id, store, now) }
            return merge
        }
    }

    /// The server keeps one event per type and time (HealthKit samples apart): a merge that would give the target
    /// two is refused whole, naming the times, before anything changes.
    private func checkNoTimeClash(_ moving: [Event], with staying: [Event]) throws {
        let taken = Set(staying.filter { $0.sourceType != .healthkit }.map(\.timestamp))
        let clashes = moving.filter { $0.sourceType != .healthkit && taken.contains($0.timestamp) }
            .map { RFC3339.string(from: $0.timestamp) }.sorted()
        guard !clashes.isEmpty else { return }
        let shown =
            clashes.prefix(3).joined(separator: ", ") + (clashes.count > 3 ? " and \(clashes.count - 3) more" : "")
        throw EventStoreError.duplicate(
            "cannot merge: \(clashes.count) event(s) would share their time with an event of the target type "
                + "(\(shown)); the server keeps one event per type and time. Change the time of one event of "
                + "each pair (events edit ID --at …) or delete it, then merge again")
    }

    /// Revives the create of `id` when it is a dead letter; `reviveMutation` rebuilds a refused create from the row
    /// as it is now, absorbing the queued update.
    private func reviveRefusedCreate(of id: String, _ store: any DataStoreProtocol, _ now: Date) throws {
        for mutation in try store.fetchMutations(entityId: id)
        where mutation.operation == .create && mutation.isDeadLetter {
            _ = try store.reviveMutation(id: mutation.id, at: now)
        }
    }
}
