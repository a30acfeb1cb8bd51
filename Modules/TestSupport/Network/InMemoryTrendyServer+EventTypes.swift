import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    /// `GET /event-types`.
    public func listEventTypes(user: String) -> [APIEventType] { eventTypes(of: user) }

    /// `POST /event-types` (api-v1 §5.2), replayed for a key already answered (api-v1 §7).
    public func createEventType(
        user: String, _ request: CreateEventTypeRequest, key: String?
    ) throws(NetworkError)
        -> APIEventType
    {
        try idempotent(user: user, method: "POST", path: "/api/v1/event-types", key: key, body: request) {
            (state: inout State) throws(NetworkError) -> APIEventType in
            try Self.check(
                FieldPatch(everyFieldOf: request.fields).values, creating: true, of: EventTypeFields.self,
                types: [String]())
            let candidate = APIEventType(id: try entityId(request.id), userId: user, fields: request.fields)
            return try create(candidate, in: Self.eventTypeObjects, &state)
        }
    }

    /// `PUT /event-types/{id}`: a partial update, merged field by field (api-v1 §3.5).
    public func updateEventType(
        user: String, id: String, _ request: UpdateEventTypeRequest, key: String?
    )
        throws(NetworkError) -> APIEventType
    {
        let id = id.lowercased()
        return try idempotent(user: user, method: "PUT", path: "/api/v1/event-types/\(id)", key: key, body: request) {
            (state: inout State) throws(NetworkError) -> APIEventType in
            try Self.check(request.values, creating: false, of: EventTypeFields.self, types: [String]())
            return try update(id, user: user, in: Self.eventTypeObjects, &state) { type throws(NetworkError) in
                type.fields = request.applied(to: type.fields)
            }
        }
    }

    /// Deletes the type, logging the cascade first: cleared geofence references, deleted events and definitions.
    public func deleteEventType(user: String, id: String) throws(NetworkError) {
        let id = id.lowercased()
        try state.withLock { (state: inout State) throws(NetworkError) in
            guard state.eventTypes[id]?.userId == user else {
                throw missingDelete(
                    &state, user: user, .eventType, id: id, noun: "event type",
                    heldByAnyone: state.eventTypes[id] != nil)
            }
            for fence in state.geofences.values.sorted(by: { $0.id < $1.id })
            where fence.userId == user && (fence.eventTypeEntryId == id || fence.eventTypeExitId == id) {
                var cleared = fence
                if cleared.eventTypeEntryId == id { cleared.eventTypeEntryId = nil }
                if cleared.eventTypeExitId == id { cleared.eventTypeExitId = nil }
                cleared.updatedAt = now
                state.geofences[fence.id] = cleared
                log(&state, user: user, .geofence, .update, id: fence.id, data: cleared)
            }
            for event in state.events.values.filter({ $0.eventTypeId == id }).sorted(by: { $0.id < $1.id }) {
                state.events[event.id] = nil
                logDelete(&state, user: user, .event, id: event.id)
            }
            for definition in state.definitions.values.filter({ $0.eventTypeId == id }).sorted(by: { $0.id < $1.id }) {
                state.definitions[definition.id] = nil
                logDelete(&state, user: user, .propertyDefinition, id: definition.id)
            }
            state.eventTypes[id] = nil
            logDelete(&state, user: user, .eventType, id: id)
        }
    }
}
