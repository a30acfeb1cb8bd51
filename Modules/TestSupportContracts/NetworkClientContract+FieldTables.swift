import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Field tables: every field of types, geofences and definitions travels (docs/architecture.md)

extension NetworkClientContract {
    static let fieldTableChecks: [Check] = [
        check("every field of the type, geofence and definition tables survives a create, a read and a full update") {
            subject in
            let client = subject.client
            var typeFields = Build.everyField(EventTypeFields.self)
            typeFields.name = "Every field \(newId())"
            let type = try await client.createEventTypeWithIdempotency(
                CreateEventTypeRequest(id: newId(), fields: typeFields), idempotencyKey: key())
            #expect(type.fields == typeFields)

            let fenceFields = Build.everyField(GeofenceFields.self, reference: type.id)
            let fence = try await client.createGeofenceWithIdempotency(
                CreateGeofenceRequest(id: newId(), fields: fenceFields), idempotencyKey: key())
            #expect(fence.fields == fenceFields.forCreate, "a create carries every field but the region identifier")
            let updatedFence = try await client.updateGeofenceWithIdempotency(
                id: fence.id, UpdateGeofenceRequest(everyFieldOf: fenceFields), idempotencyKey: key())
            #expect(updatedFence.fields == fenceFields)
            guard case .geofence(let readFence)? = try await client.fetchEntity(.geofence, id: fence.id) else {
                Issue.record("expected the geofence")
                return
            }
            #expect(readFence.fields == fenceFields)

            let definitionFields = Build.everyField(PropertyDefinitionFields.self)
            let definition = try await client.createPropertyDefinitionWithIdempotency(
                CreatePropertyDefinitionRequest(id: newId(), eventTypeId: type.id, fields: definitionFields),
                idempotencyKey: key())
            #expect(definition.fields == definitionFields)
            let cleared = try await client.updatePropertyDefinitionWithIdempotency(
                id: definition.id,
                UpdatePropertyDefinitionRequest { $0.cleared = PropertyDefinitionFields.clearableKeys },
                idempotencyKey: key())
            var expected = definitionFields
            for field in PropertyDefinitionFields.fields where field.clearable { expected[field] = nil }
            #expect(cleared.fields == expected, "null clears every clearable field, and only those")
        }
    ]
}
