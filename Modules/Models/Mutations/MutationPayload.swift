import Foundation

/// The exact JSON request bodies stored in the outbox (sync-engine §1.6) and the fold overlay of sync-engine §1.7.
///
/// Payloads are encoded with `JSONCoding` (sorted keys), so decoding one into its typed request and encoding
/// it again reproduces the stored bytes.
public enum MutationPayload {
    /// The entity as a create body.
    public static func create(_ entity: some OutboxEntity) throws -> Data {
        try JSONCoding.encode(entity.createRequest)
    }

    /// The entity's full state as an update body: the base a patch is taken from.
    public static func update(_ entity: some OutboxEntity) throws -> Data {
        try JSONCoding.encode(entity.updateRequest)
    }

    /// R1: what an edit changed, as an update body; nil when it changed nothing.
    public static func patch<Entity: OutboxEntity>(from before: Entity, to after: Entity) throws -> Data? {
        try patch(
            JSONValueEncoder.encode(before.updateRequest), JSONValueEncoder.encode(after.updateRequest),
            of: Entity.entityType)
    }

    /// The keys whose value differs between two full-state bodies (sync-engine R1): a cleared field as `null`,
    /// coordinates as a pair, event properties as `properties_patch` (a changed or new key's value, `null` for a
    /// removed one).
    static func patch(_ before: JSONValue, _ after: JSONValue, of entityType: MutationEntityType) throws -> Data? {
        guard case .object(let old) = before, case .object(let new) = after else { throw PayloadError.notAnObject }
        var patch: [String: JSONValue] = [:]
        for (key, value) in new where key != "properties" && old[key] != value { patch[key] = value }
        if entityType == .event {
            if patch[latitudeKey] != nil || patch[longitudeKey] != nil {
                patch[latitudeKey] = new[latitudeKey] ?? .null
                patch[longitudeKey] = new[longitudeKey] ?? .null
            }
            let oldProperties = old["properties"]?.objectValue ?? [:]
            let newProperties = new["properties"]?.objectValue ?? [:]
            var properties: [String: JSONValue] = [:]
            for (key, value) in newProperties where oldProperties[key] != value { properties[key] = value }
            for key in oldProperties.keys where newProperties[key] == nil { properties[key] = .null }
            if !properties.isEmpty { patch[propertiesPatchKey] = .object(properties) }
        }
        guard !patch.isEmpty else { return nil }
        return try canonical(JSONCoding.encode(JSONValue.object(patch)), .update, of: entityType)
    }

    static let latitudeKey = "location_latitude"
    static let longitudeKey = "location_longitude"
    /// The key of an update body that changes some of an event's properties, key by key (api-v1 §3.5).
    public static let propertiesPatchKey = "properties_patch"

    /// The fields of the entity's REST object (api-v1 §4) an update body sets: its keys, each key of a
    /// `properties_patch` as `properties.<key>` (api-v1 §15.1's `pending` names). Empty for a body that is not a
    /// JSON object.
    public static func members(setBy update: Data) -> Set<String> {
        guard case .object(let keys)? = try? JSONCoding.decode(JSONValue.self, from: update) else { return [] }
        var members: Set<String> = []
        for (key, value) in keys {
            if key == propertiesPatchKey {
                members.formUnion((value.objectValue ?? [:]).keys.map { "properties." + $0 })
            } else {
                members.insert(key)
            }
        }
        return members
    }

    /// R2: `newer` merged into `older` key by key, the newer value winning; `properties_patch` per property key (and
    /// into a whole `properties` map when the older patch was rewritten to carry one).
    public static func merge(_ older: Data, _ newer: Data, of entityType: MutationEntityType) throws -> Data {
        guard case .object(var merged) = try JSONCoding.decode(JSONValue.self, from: older),
            case .object(let update) = try JSONCoding.decode(JSONValue.self, from: newer)
        else { throw PayloadError.notAnObject }
        for (key, value) in update {
            guard key == propertiesPatchKey, case .object(let entries) = value else {
                merged[key] = value
                continue
            }
            if case .object(var whole)? = merged["properties"] {
                for (property, entry) in entries { whole[property] = entry.nonNull }
                merged["properties"] = .object(whole)
            } else {
                var patch = merged[propertiesPatchKey]?.objectValue ?? [:]
                for (property, entry) in entries { patch[property] = entry }
                merged[propertiesPatchKey] = .object(patch)
            }
        }
        return try canonical(JSONCoding.encode(JSONValue.object(merged)), .update, of: entityType)
    }

    /// R2: what is left of `queued` once `acknowledged` went through: every key (and property key) whose queued
    /// value equals the acknowledged one goes. Nil when nothing is left.
    public static func subtracting(
        _ acknowledged: Data, from queued: Data, of entityType: MutationEntityType
    ) throws -> Data? {
        guard case .object(var left) = try JSONCoding.decode(JSONValue.self, from: queued),
            case .object(let done) = try JSONCoding.decode(JSONValue.self, from: acknowledged)
        else { throw PayloadError.notAnObject }
        for (key, value) in done where key != propertiesPatchKey && left[key] == value { left[key] = nil }
        if case .object(let donePatch)? = done[propertiesPatchKey], case .object(var patch)? = left[propertiesPatchKey]
        {
            for (property, value) in donePatch where patch[property] == value { patch[property] = nil }
            left[propertiesPatchKey] = patch.isEmpty ? Optional.none : .object(patch)
        }
        if entityType == .event, (left[latitudeKey] == nil) != (left[longitudeKey] == nil) {
            // The pair goes together: if one half is still owed, both are.
            left[latitudeKey] = left[latitudeKey] ?? done[latitudeKey]
            left[longitudeKey] = left[longitudeKey] ?? done[longitudeKey]
        }
        guard !left.isEmpty else { return nil }
        return try canonical(JSONCoding.encode(JSONValue.object(left)), .update, of: entityType)
    }

    /// R8: the same keys as `patch`, with the values `full` (the row's full state now) holds: what a revived update
    /// sends. `properties_patch` keys take the row's property or `null`; a whole `properties` the row's map.
    public static func rebuilding(_ patch: Data, from full: Data, of entityType: MutationEntityType) throws -> Data {
        guard case .object(let keys) = try JSONCoding.decode(JSONValue.self, from: patch),
            case .object(let state) = try JSONCoding.decode(JSONValue.self, from: full)
        else { throw PayloadError.notAnObject }
        var rebuilt: [String: JSONValue] = [:]
        for (key, value) in keys {
            if key == propertiesPatchKey, case .object(let entries) = value {
                let properties = state["properties"]?.objectValue ?? [:]
                rebuilt[key] = .object(
                    Dictionary(uniqueKeysWithValues: entries.keys.map { ($0, properties[$0] ?? .null) }))
            } else {
                rebuilt[key] = state[key] ?? .null
            }
        }
        return try canonical(JSONCoding.encode(JSONValue.object(rebuilt)), .update, of: entityType)
    }

    /// Folds an update body into an unsent create body (sync-engine §1.7, R2).
    ///
    /// Starting from the create's object, each key of the update sets its value, except that `null` removes the
    /// key (`properties: null` becomes `{}`); keys the create shape does not have (`ios_region_identifier`) are
    /// dropped; `properties_patch` sets or removes keys of the create's `properties`; the create's `id` and, for
    /// property definitions, its `event_type_id` are kept. The result is
    /// re-encoded through the typed create request, so it is byte-identical to what the client will send.
    public static func fold(
        create createPayload: Data, update updatePayload: Data, of entityType: MutationEntityType
    )
        throws -> Data
    {
        guard case .object(var created) = try JSONCoding.decode(JSONValue.self, from: createPayload),
            case .object(let update) = try JSONCoding.decode(JSONValue.self, from: updatePayload)
        else { throw PayloadError.notAnObject }
        let allowed = createKeys(of: entityType)
        for (key, value) in update where allowed.contains(key) {
            if key == "id" || (key == "event_type_id" && entityType == .propertyDefinition) { continue }
            if value == .null {
                created[key] = key == "properties" ? .object([:]) : Optional.none
            } else {
                created[key] = value
            }
        }
        // R2: a patch's properties go into the create's map key by key; `properties_patch` itself is not kept.
        if case .object(let entries)? = update[propertiesPatchKey] {
            var properties = created["properties"]?.objectValue ?? [:]
            for (property, entry) in entries { properties[property] = entry.nonNull }
            created["properties"] = .object(properties)
        }
        return try canonical(JSONCoding.encode(JSONValue.object(created)), .create, of: entityType)
    }

    /// Decodes a body into the typed request of its entity and operation, and encodes it again: its canonical form.
    public static func canonical(
        _ payload: Data, _ operation: MutationOperation, of entityType: MutationEntityType
    ) throws -> Data {
        func recode<Entity: OutboxEntity>(_: Entity.Type) throws -> Data {
            operation == .create
                ? try JSONCoding.encode(JSONCoding.decode(Entity.CreateRequest.self, from: payload))
                : try JSONCoding.encode(JSONCoding.decode(Entity.UpdateRequest.self, from: payload))
        }
        return try recode(entityType.outboxEntity)
    }

    /// The string a payload holds under `key`, lowercased (an id), or nil.
    public static func id(in payload: Data?, key: String) -> String? {
        guard let payload, let body = try? JSONText.parse(Array(payload)) else { return nil }
        return body[key]?.stringValue?.lowercased()
    }

    /// The payload without the references in `keys`: a create leaves them out, an update sends `null`, which clears
    /// them on the server (sync-engine R8: a payload never names a removed parent). Nil when the payload named none.
    public static func clearing(
        _ keys: [String], in payload: Data, of entityType: MutationEntityType, operation: MutationOperation
    ) throws -> Data? {
        guard case .object(var body) = try JSONCoding.decode(JSONValue.self, from: payload) else {
            throw PayloadError.notAnObject
        }
        var changed = false
        for key in keys where body[key] != nil && body[key] != .null {
            body[key] = operation == .create ? Optional.none : .null
            changed = true
        }
        guard changed else { return nil }
        let text = try JSONCoding.encode(JSONValue.object(body))
        return operation == .create
            ? try canonical(text, .create, of: entityType) : try canonical(text, .update, of: entityType)
    }

    /// The keys of each entity type's create request.
    public static func createKeys(of entityType: MutationEntityType) -> Set<String> {
        switch entityType {
        case .eventType: Set(["id"] + EventTypeFields.createKeys)
        case .geofence: Set(["id"] + GeofenceFields.createKeys)
        case .propertyDefinition: Set(["id", "event_type_id"] + PropertyDefinitionFields.createKeys)
        case .event: Set(CreateEventRequest.keys)
        }
    }

    /// A payload that cannot be read as a request body.
    public enum PayloadError: Error, Equatable {
        /// The bytes are not a JSON object.
        case notAnObject
    }
}
