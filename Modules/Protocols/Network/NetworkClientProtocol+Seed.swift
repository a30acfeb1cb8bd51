import Foundation
import Models

// The seed's named writes and N3–N6 (sync-engine §2.1, §2.2), written once over the generic requirements: every
// client has them, and none implements them again.

extension NetworkClientProtocol {
    // MARK: Creates with the mutation's key

    /// `POST /api/v1/event-types` with the given key (the mutation's `client_request_id`).
    public func createEventTypeWithIdempotency(
        _ request: CreateEventTypeRequest, idempotencyKey: String
    ) async throws -> APIEventType {
        try await create(request, idempotencyKey: idempotencyKey)
    }

    /// `POST /api/v1/events` with the given key.
    public func createEventWithIdempotency(
        _ request: CreateEventRequest, idempotencyKey: String
    ) async throws -> APIEvent {
        try await create(request, idempotencyKey: idempotencyKey)
    }

    /// `POST /api/v1/geofences` with the given key.
    public func createGeofenceWithIdempotency(
        _ request: CreateGeofenceRequest, idempotencyKey: String
    ) async throws -> APIGeofence {
        try await create(request, idempotencyKey: idempotencyKey)
    }

    /// `POST /api/v1/event-types/{request.eventTypeId}/properties` with the given key.
    public func createPropertyDefinitionWithIdempotency(
        _ request: CreatePropertyDefinitionRequest, idempotencyKey: String
    ) async throws -> APIPropertyDefinition {
        try await create(request, idempotencyKey: idempotencyKey)
    }

    // MARK: N3–N6: updates with the mutation's key

    /// N3. `PUT /api/v1/event-types/{id}` with the mutation's key.
    public func updateEventTypeWithIdempotency(
        id: String, _ request: UpdateEventTypeRequest, idempotencyKey: String
    ) async throws -> APIEventType {
        try await update(id: id, request, idempotencyKey: idempotencyKey)
    }

    /// N4. `PUT /api/v1/events/{id}` with the mutation's key.
    public func updateEventWithIdempotency(
        id: String, _ request: UpdateEventRequest, idempotencyKey: String
    ) async throws -> APIEvent {
        try await update(id: id, request, idempotencyKey: idempotencyKey)
    }

    /// N5. `PUT /api/v1/geofences/{id}` with the mutation's key.
    public func updateGeofenceWithIdempotency(
        id: String, _ request: UpdateGeofenceRequest, idempotencyKey: String
    ) async throws -> APIGeofence {
        try await update(id: id, request, idempotencyKey: idempotencyKey)
    }

    /// N6. `PUT /api/v1/property-definitions/{id}` with the mutation's key.
    public func updatePropertyDefinitionWithIdempotency(
        id: String, _ request: UpdatePropertyDefinitionRequest, idempotencyKey: String
    ) async throws -> APIPropertyDefinition {
        try await update(id: id, request, idempotencyKey: idempotencyKey)
    }

    // MARK: Deletes

    /// `DELETE /api/v1/event-types/{id}`. The server deletes its events and property definitions too.
    public func deleteEventType(id: String) async throws { _ = try await deleteEntity(.eventType, id: id) }

    /// `DELETE /api/v1/events/{id}`.
    public func deleteEvent(id: String) async throws { _ = try await deleteEntity(.event, id: id) }

    /// `DELETE /api/v1/geofences/{id}`. The server clears `geofence_id` on its events.
    public func deleteGeofence(id: String) async throws { _ = try await deleteEntity(.geofence, id: id) }

    /// `DELETE /api/v1/property-definitions/{id}`.
    public func deletePropertyDefinition(id: String) async throws {
        _ = try await deleteEntity(.propertyDefinition, id: id)
    }
}
