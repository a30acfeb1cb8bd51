import Foundation
import Models
import Protocols

/// The reads of an `EventStore`, all on one snapshot of the local data (`EventStore.readingSnapshot`): what one
/// returns agrees with what another returns, and the pages of a long listing neither repeat nor miss an event that
/// a sync moved between them. Not `Sendable`: it is a read transaction in progress, valid inside the closure only.
public struct LocalSnapshot {
    let store: any DataStoreProtocol

    /// Event types by name.
    public func eventTypes() throws -> [EventType] { EventStore.byName(try store.fetchAllEventTypes()) }

    /// Events matching `query`, as `EventStore.events` lists them.
    public func events(_ query: EventQuery = EventQuery()) throws -> [Event] { try store.fetchEvents(matching: query) }

    /// Geofences by name.
    public func geofences() throws -> [Geofence] { EventStore.byName(try store.fetchAllGeofences()) }

    /// The definitions of one type, by display order.
    public func propertyDefinitions(eventTypeId: String) throws -> [PropertyDefinition] {
        EventStore.definitions(of: eventTypeId, among: try store.fetchAllPropertyDefinitions())
    }
}

extension EventStore {
    /// Runs `body` on one snapshot of the local data. Where the factory reads snapshots (`LocalSnapshotReading`:
    /// the SQLite stores and the mock) the engine's and other processes' writes go on meanwhile; otherwise the
    /// snapshot is a unit of work that is rolled back, and writers wait for it.
    public func readingSnapshot<Value>(_ body: (LocalSnapshot) throws -> Value) throws -> Value {
        if let reading = stores as? any LocalSnapshotReading {
            return try reading.readSnapshot { try body(LocalSnapshot(store: $0)) }
        }
        return try body(LocalSnapshot(store: stores.makeDataStore()))
    }
}
