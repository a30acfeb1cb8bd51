import Foundation
import Models
import Networking
import Persistence
import Protocols
import Sync
import TestSupport

extension ConvergenceRun {
    /// The fields `mergeFields` edits, by entity: two each, so that two devices sometimes edit different fields of one
    /// entity and sometimes the same one.
    static let mergeableFields: [MutationEntityType: [String]] = [
        .event: ["notes", "properties.fa", "properties.fb"],
        .eventType: ["color", "icon"],
        .geofence: ["name", "radius"],
        .propertyDefinition: ["label", "default_value"],
    ]

    /// The field-merge move: this device and another edit one entity both hold, a different field each (or, one time in
    /// three, the same field), then sync in a random order, each only when online and only most of the time.
    /// Returns nil when no entity of the kind drawn is on both devices.
    func mergeFields(on index: Int, local: Entities) async throws -> String? {
        guard clients.count > 1 else { return nil }
        let otherIndex = (index + 1 + Int.random(in: 0..<(clients.count - 1), using: &random)) % clients.count
        let theirs = try clients[otherIndex].entities()
        let kinds: [MutationEntityType] = [.event, .eventType, .geofence, .propertyDefinition]
        let kind = random.pick(kinds) ?? .event
        let shared: Set<String> =
            switch kind {
            case .event: Set(local.events.keys).intersection(theirs.events.keys)
            case .eventType: Set(local.types.keys).intersection(theirs.types.keys)
            case .geofence: Set(local.geofences.keys).intersection(theirs.geofences.keys)
            case .propertyDefinition: Set(local.definitions.keys).intersection(theirs.definitions.keys)
            }
        guard let id = random.pick(shared.sorted()), let choices = Self.mergeableFields[kind],
            let first = random.pick(choices)
        else { return nil }
        let second = random.chance(0.33) ? first : random.pick(choices.filter { $0 != first }) ?? first
        let mine = try await writeUnique(first, of: kind, id: id, on: clients[index])
        let yours = try await writeUnique(second, of: kind, id: id, on: clients[otherIndex])
        var line =
            "\(clients[index].name) \(kind.rawValue) \(id) \(first)=\(mine); "
            + "\(clients[otherIndex].name) \(second)=\(yours)"
        let order = random.chance(0.5) ? [index, otherIndex] : [otherIndex, index]
        for device in order where clients[device].offlineFor == 0 && random.chance(0.8) {
            line += "; \(clients[device].name) → \(try await sync(device))"
        }
        return line
    }

    /// Writes a value no other write of the run holds to `field` of one entity on `device`, and records it.
    func writeUnique(
        _ field: String, of kind: MutationEntityType, id: String, on device: ProofClient
    ) async throws -> JSONValue {
        let store = device.events
        let text = fields.uniqueText()
        let value: JSONValue
        switch (kind, field) {
        case (.event, "notes"):
            _ = try await store.updateEvent(id: id) { $0.notes = text }
            value = .string(text)
        case (.event, _):
            let property = PropertyValue(type: .text, value: .string(text))
            _ = try await store.updateEvent(id: id) {
                $0.properties[String(field.dropFirst("properties.".count))] = property
            }
            value = ["type": "text", "value": .string(text)]
        case (.eventType, "color"):
            _ = try await store.updateEventType(id: id) { $0.color = text }
            value = .string(text)
        case (.eventType, _):
            _ = try await store.updateEventType(id: id) { $0.icon = text }
            value = .string(text)
        case (.geofence, "name"):
            _ = try await store.updateGeofence(id: id) { $0.name = text }
            value = .string(text)
        case (.geofence, _):
            let radius = fields.uniqueNumber()
            _ = try await store.updateGeofence(id: id) { $0.radius = radius }
            value = .number(radius)
        case (.propertyDefinition, "label"):
            _ = try await store.updatePropertyDefinition(id: id) { $0.label = text }
            value = .string(text)
        case (.propertyDefinition, _):
            _ = try await store.updatePropertyDefinition(id: id) { $0.defaultValue = .string(text) }
            value = .string(text)
        }
        fields.wrote(value, to: FieldLedger.Key(entity: id, field: field), on: device.name)
        return value
    }

    /// Moves every device's field writes whose entity its queue no longer holds to acknowledged (`FieldLedger`).
    func acknowledgeFieldWrites() throws {
        var queued: [String: Set<String>] = [:]
        for client in clients {
            queued[client.name] = Set(try client.stores.saved { try $0.fetchPendingMutations() }.map(\.entityId))
        }
        fields.acknowledge(queued: queued)
    }

    /// The server's whole change feed, in order.
    func serverFeed(_ server: ProofServer) async throws -> [ChangeEntry] {
        let api = APIClient(
            configuration: try APIClient.Configuration(serverRoot: server.root),
            tokenProvider: StaticTokenProvider(server.token))
        var entries: [ChangeEntry] = []
        var since: Int64 = 0
        while true {
            let page = try await api.getChanges(since: since, limit: 1000)
            entries += page.changes
            since = page.nextCursor
            if !page.hasMore { return entries }
        }
    }
}
