import Foundation
import Models
import Persistence
import Protocols

/// The store's two hot paths as the engine drives them, shared by the threshold benchmarks and `trendy-bench store`.
public enum StoreWork {
    /// The pull path: one unit of work per page, every event upserted, the cursor saved with the page.
    public static func applyPage(_ page: ArraySlice<APIEvent>, cursor: Int64, to factory: any DataStoreFactory) throws {
        let store = factory.makeDataStore()
        var state = try store.loadEngineState()
        for event in page {
            try store.upsertEvent(id: event.id) { $0.replaceFields(with: event) }
        }
        state.cursor = cursor
        try store.saveEngineState(state)
        try store.save()
    }

    /// The local-write path: the entity row and its create mutation in one unit of work.
    public static func writeLocalEvent(typeId: String, index: Int, to factory: any DataStoreFactory) throws {
        let now = Date()
        let event = Event(
            id: UUIDv7.generate(at: now), eventTypeId: typeId, timestamp: now.roundedToMilliseconds,
            notes: index.isMultiple(of: 2) ? "note" : nil)
        let store = factory.makeDataStore()
        try store.upsertEvent(id: event.id) { $0 = event }
        try store.setSyncStatus(.pending, entityType: .event, id: event.id)
        _ = try store.enqueueMutation(
            entityType: .event, operation: .create, entityId: event.id, payload: try MutationPayload.create(event),
            at: now)
        try store.save()
    }
}
