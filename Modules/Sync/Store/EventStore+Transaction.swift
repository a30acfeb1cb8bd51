import Foundation
import Models
import Protocols

extension EventStore {
    /// Reads and writes in one unit of work — one SQLite transaction, committed when `body` returns, rolled back
    /// entirely when it throws. For a write that depends on what it reads (resolve a type by name, then log an
    /// event of it) without a second transaction or a window between the read and the write.
    public func transaction<Result>(_ body: (Transaction) throws -> Result) async throws -> Result {
        try await write { store, now in try body(Transaction(events: self, store: store, now: now)) }
    }

    /// What `transaction` hands its body; valid only inside it.
    public struct Transaction {
        let events: EventStore
        let store: any DataStoreProtocol
        /// The instant of this unit of work (the store's clock, to the millisecond).
        public let now: Date

        /// Event types by name, as this transaction sees them.
        public func eventTypes() throws -> [EventType] {
            EventStore.byName(try store.fetchAllEventTypes())
        }

        /// The definitions of one type, by display order, as this transaction sees them.
        public func propertyDefinitions(eventTypeId: String) throws -> [PropertyDefinition] {
            try EventStore.definitions(of: eventTypeId, among: store.fetchAllPropertyDefinitions())
        }

        /// As `EventStore.createEvent`, inside this transaction.
        public func createEvent(
            eventTypeId: String, timestamp: Date, configure: (inout Event) -> Void = { _ in }
        ) throws -> Event {
            try events.createEvent(eventTypeId: eventTypeId, timestamp: timestamp, store, now, configure: configure)
        }
    }
}
