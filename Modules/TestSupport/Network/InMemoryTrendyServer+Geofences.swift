import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    public func listGeofences(user: String, activeOnly: Bool) -> [APIGeofence] {
        geofences(of: user).filter { !activeOnly || $0.isActive }
    }

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
            let id = try entityId(request.id)
            let candidate = APIGeofence(id: id, userId: user, fields: request.fields.normalized)
            if let stored = state.geofences[id] {
                guard stored.userId == user else { throw Problems.idTaken }
                var comparable = stored
                (comparable.createdAt, comparable.updatedAt, comparable.iosRegionIdentifier) = (nil, nil, nil)
                if comparable == candidate { return stored }
                throw Problems.conflict("id: another geofence has this id", existingId: id)
            }
            if let holder = state.geofences.values.first(where: { $0.userId == user && $0.name == request.name }) {
                throw Problems.conflict("name: a geofence named \(request.name) already exists", existingId: holder.id)
            }
            var created = candidate
            (created.createdAt, created.updatedAt) = (now, now)
            state.geofences[id] = created
            log(&state, user: user, .geofence, .create, id: id, data: created)
            return created
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
            guard var fence = state.geofences[id], fence.userId == user else { throw Problems.notFound("geofence") }
            let types = state.eventTypes.values.filter { $0.userId == user }.map(\.id)
            try Self.check(request.values, creating: false, of: GeofenceFields.self, types: types)
            let stored = fence
            fence.fields = request.applied(to: fence.fields).normalized
            guard fence != stored else { return stored }
            if let holder = state.geofences.values.first(where: {
                $0.userId == user && $0.name == fence.name && $0.id != id
            }) {
                throw Problems.conflict("name: a geofence named \(fence.name) already exists", existingId: holder.id)
            }
            fence.updatedAt = now
            state.geofences[id] = fence
            log(&state, user: user, .geofence, .update, id: id, data: fence)
            return fence
        }
    }

    /// Clears `geofence_id` on the fence's events (one update row each), then deletes it.
    public func deleteGeofence(user: String, id: String) throws(NetworkError) {
        let id = id.lowercased()
        try state.withLock { (state: inout State) throws(NetworkError) in
            guard state.geofences[id]?.userId == user else { throw Problems.notFound("geofence") }
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
