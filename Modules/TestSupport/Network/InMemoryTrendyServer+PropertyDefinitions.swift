import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    public func listPropertyDefinitions(
        user: String, eventTypeId: String
    ) throws(NetworkError) -> [APIPropertyDefinition] {
        let typeId = eventTypeId.lowercased()
        return try state.withLock { (state: inout State) throws(NetworkError) -> [APIPropertyDefinition] in
            guard state.eventTypes[typeId]?.userId == user else { throw Problems.notFound("event type") }
            return Self.sortedDefinitions(state.definitions.values.filter { $0.eventTypeId == typeId })
        }
    }

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
            let id = try entityId(request.id)
            let candidate = APIPropertyDefinition(id: id, userId: user, eventTypeId: typeId, fields: request.fields)
            if let stored = state.definitions[id] {
                guard stored.userId == user else { throw Problems.idTaken }
                var comparable = stored
                (comparable.createdAt, comparable.updatedAt) = (nil, nil)
                if comparable == candidate { return stored }
                throw Problems.conflict("id: another property definition has this id", existingId: id)
            }
            if let holder = state.definitions.values.first(where: {
                $0.eventTypeId == typeId && $0.key == candidate.key
            }) {
                throw Problems.conflict(
                    "key: this event type already has a property \(candidate.key)", existingId: holder.id)
            }
            var created = candidate
            (created.createdAt, created.updatedAt) = (now, now)
            state.definitions[id] = created
            log(&state, user: user, .propertyDefinition, .create, id: id, data: created)
            return created
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
            guard var definition = state.definitions[id], definition.userId == user else {
                throw Problems.notFound("property definition")
            }
            try Self.check(request.values, creating: false, of: PropertyDefinitionFields.self, types: [String]())
            let stored = definition
            definition.fields = request.applied(to: definition.fields)
            if definition.propertyType == .select && definition.options.isEmpty {
                throw Problems.validation("options are required for a select property")
            }
            guard definition != stored else { return stored }
            if let holder = state.definitions.values.first(where: {
                $0.eventTypeId == definition.eventTypeId && $0.key == definition.key && $0.id != id
            }) {
                throw Problems.conflict(
                    "key: this event type already has a property \(definition.key)", existingId: holder.id)
            }
            definition.updatedAt = now
            state.definitions[id] = definition
            log(&state, user: user, .propertyDefinition, .update, id: id, data: definition)
            return definition
        }
    }

    public func deletePropertyDefinition(user: String, id: String) throws(NetworkError) {
        let id = id.lowercased()
        try state.withLock { (state: inout State) throws(NetworkError) in
            guard state.definitions[id]?.userId == user else { throw Problems.notFound("property definition") }
            state.definitions[id] = nil
            logDelete(&state, user: user, .propertyDefinition, id: id)
        }
    }
}
