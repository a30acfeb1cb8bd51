import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    /// `GET /geofences`, only the active ones with `activeOnly`.
    public func listGeofences(user: String, activeOnly: Bool) -> [APIGeofence] {
        geofences(of: user).filter { !activeOnly || $0.isActive }
    }

    /// `POST /geofences` (api-v1 §5.5), replayed for a key already answered.
    public func createGeofence(
        user: String, _ request: CreateGeofenceRequest, key: String?
    ) throws(NetworkError)
        -> APIGeofence
    {
        try idempotent(user: user, method: "POST", path: "/api/v1/geofences", key: key, body: request) {
            (state: inout State) throws(NetworkError) -> APIGeofence in
            let types = state.eventTypes.values.filter { $0.userId == user }.map(\.id)
            try Self.check(
                FieldPatch(everyFieldOf: request.fields).values, creating: true, of: GeofenceFields.self, types: types)
            let candidate = APIGeofence(id: try entityId(request.id), userId: user, fields: request.fields.normalized)
            return try create(candidate, in: Self.geofenceObjects, &state)
        }
    }

    /// A field the request does not set stays; `cleared` clears the entry/exit ids.
    public func updateGeofence(
        user: String, id: String, _ request: UpdateGeofenceRequest, key: String?
    )
        throws(NetworkError) -> APIGeofence
    {
        let id = id.lowercased()
        return try idempotent(user: user, method: "PUT", path: "/api/v1/geofences/\(id)", key: key, body: request) {
            (state: inout State) throws(NetworkError) -> APIGeofence in
            let types = state.eventTypes.values.filter { $0.userId == user }.map(\.id)
            try Self.check(request.values, creating: false, of: GeofenceFields.self, types: types)
            return try update(id, user: user, in: Self.geofenceObjects, &state) { fence throws(NetworkError) in
                fence.fields = request.applied(to: fence.fields).normalized
            }
        }
    }

    /// Clears `geofence_id` on the fence's events (one update row each), then deletes it.
    public func deleteGeofence(user: String, id: String) throws(NetworkError) {
        let id = id.lowercased()
        try state.withLock { (state: inout State) throws(NetworkError) in
            guard state.geofences[id]?.userId == user else {
                throw missingDelete(
                    &state, user: user, .geofence, id: id, noun: "geofence", heldByAnyone: state.geofences[id] != nil)
            }
            for event in state.events.values.filter({ $0.geofenceId == id }).sorted(by: { $0.id < $1.id }) {
                var cleared = event
                cleared.geofenceId = nil
                cleared.updatedAt = now
                state.events[event.id] = cleared
                log(&state, user: user, .event, .update, id: event.id, data: cleared)
            }
            state.geofences[id] = nil
            logDelete(&state, user: user, .geofence, id: id)
        }
    }
}
