import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    /// `GET /event-types/{id}/properties`: 404 for a type `user` does not have.
    public func listPropertyDefinitions(
        user: String, eventTypeId: String
    ) throws(NetworkError) -> [APIPropertyDefinition] {
        let typeId = eventTypeId.lowercased()
        return try state.withLock { (state: inout State) throws(NetworkError) -> [APIPropertyDefinition] in
            guard state.eventTypes[typeId]?.userId == user else { throw Problems.notFound("event type") }
            return Self.sortedDefinitions(state.definitions.values.filter { $0.eventTypeId == typeId })
        }
    }

    /// `POST /event-types/{id}/properties`, replayed for a key already answered.
    public func createPropertyDefinition(
        user: String, eventTypeId: String, _ request: CreatePropertyDefinitionRequest, key: String?
    ) throws(NetworkError) -> APIPropertyDefinition {
        let typeId = eventTypeId.lowercased()
        return try idempotent(
            user: user, method: "POST", path: "/api/v1/event-types/\(typeId)/properties", key: key, body: request
        ) { (state: inout State) throws(NetworkError) -> APIPropertyDefinition in
            guard state.eventTypes[typeId]?.userId == user else { throw Problems.notFound("event type") }
            try Self.check(
                FieldPatch(everyFieldOf: request.fields).values, creating: true, of: PropertyDefinitionFields.self,
                types: [String]())
            if request.propertyType == .select && request.options.isEmpty {
                throw Problems.validation("options are required for a select property")
            }
            let candidate = APIPropertyDefinition(
                id: try entityId(request.id), userId: user, eventTypeId: typeId, fields: request.fields)
            return try create(candidate, in: Self.definitionObjects, &state)
        }
    }

    /// A field the request does not set stays; `cleared` clears `options` and `default_value`.
    public func updatePropertyDefinition(
        user: String, id: String, _ request: UpdatePropertyDefinitionRequest, key: String?
    ) throws(NetworkError) -> APIPropertyDefinition {
        let id = id.lowercased()
        return try idempotent(
            user: user, method: "PUT", path: "/api/v1/property-definitions/\(id)", key: key, body: request
        ) { (state: inout State) throws(NetworkError) -> APIPropertyDefinition in
            try Self.check(request.values, creating: false, of: PropertyDefinitionFields.self, types: [String]())
            return try update(id, user: user, in: Self.definitionObjects, &state) {
                definition throws(NetworkError) in
                definition.fields = request.applied(to: definition.fields)
                if definition.propertyType == .select && definition.options.isEmpty {
                    throw Problems.validation("options are required for a select property")
                }
            }
        }
    }

    /// `DELETE /property-definitions/{id}`: logged in the feed; 404 `deleted` for one deleted before (api-v1 §6.6).
    public func deletePropertyDefinition(user: String, id: String) throws(NetworkError) {
        let id = id.lowercased()
        try state.withLock { (state: inout State) throws(NetworkError) in
            guard state.definitions[id]?.userId == user else {
                throw missingDelete(
                    &state, user: user, .propertyDefinition, id: id, noun: "property definition",
                    heldByAnyone: state.definitions[id] != nil)
            }
            state.definitions[id] = nil
            logDelete(&state, user: user, .propertyDefinition, id: id)
        }
    }
}
