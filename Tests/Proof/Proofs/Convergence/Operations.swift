import Foundation
import Models
import Protocols
import Sync
import TestSupport

/// One random step of a run: a local write, a sync, or a user's action on the queue.
enum Operation: CaseIterable {
    case createType, editType, deleteType
    case createEvent, editEvent, deleteEvent
    case createGeofence, editGeofence, deleteGeofence
    case createDefinition, editDefinition, deleteDefinition
    case sync, goOffline, retryDeadLetters, discardOne

    /// Relative frequency.
    var weight: Int {
        switch self {
        case .createType: 5
        case .editType: 4
        case .deleteType: 1
        case .createEvent: 16
        case .editEvent: 8
        case .deleteEvent: 4
        case .createGeofence: 3
        case .editGeofence: 2
        case .deleteGeofence: 1
        case .createDefinition: 3
        case .editDefinition: 2
        case .deleteDefinition: 1
        case .sync: 16
        case .goOffline: 1
        case .retryDeadLetters: 2
        case .discardOne: 1
        }
    }

    static func random(using random: inout SeededRandom) -> Operation {
        let total = allCases.reduce(0) { $0 + $1.weight }
        var roll = Int.random(in: 0..<total, using: &random)
        for operation in allCases {
            if roll < operation.weight { return operation }
            roll -= operation.weight
        }
        return .sync
    }
}

extension ConvergenceRun {
    /// Applies `operation` on client `index`; returns the line for the operation log.
    func apply(_ operation: Operation, on index: Int) async throws -> String {
        let client = clients[index]
        let store = client.events
        let local = try client.entities()
        func pickId<Value>(_ values: [String: Value]) -> String? { random.pick(values.keys.sorted()) }
        let name = "\(client.name) \(operation)"
        /// Deletes one of `values` with `delete` and records it in the ledger.
        func deleteOne<Value>(_ values: [String: Value], _ delete: (String) async throws -> Void) async throws -> String
        {
            guard let id = pickId(values) else { return "\(name): nothing to delete" }
            try await delete(id)
            ledger.deleted[id] = client.name
            return "\(name) \(id)"
        }
        do {
            switch operation {
            case .createType:
                // A small pool of names, so two devices sometimes create the same name: a conflict to resolve.
                let type = try await store.createEventType(
                    name: "Type \(Int.random(in: 0..<12, using: &random))",
                    color: random.pick(["red", "green", "blue"]) ?? "red")
                ledger.created[type.id] = .init(client: client.name, kind: .eventType, parentType: nil)
                return "\(name) \(type.id) \(type.name)"
            case .editType:
                guard let id = pickId(local.types) else { return "\(name): nothing to edit" }
                let icon = "icon-\(Int.random(in: 0..<100, using: &random))"
                _ = try await store.updateEventType(id: id) { $0.icon = icon }
                return "\(name) \(id) icon=\(icon)"
            case .deleteType:
                return try await deleteOne(local.types, store.deleteEventType(id:)) + " with its events and definitions"
            case .createEvent:
                guard let typeId = pickId(local.types) else { return "\(name): no type yet" }
                let keys = local.definitions.values.filter { $0.eventTypeId == typeId }.map(\.key).sorted()
                let seconds = Double(Int.random(in: 0..<2_000_000, using: &random))
                let fence = random.chance(0.2) ? pickId(local.geofences) : nil
                let notes = random.chance(0.5) ? "note \(Int.random(in: 0..<1000, using: &random))" : nil
                let property = random.pick(keys)
                let event = try await store.createEvent(
                    eventTypeId: typeId, timestamp: Date(timeIntervalSince1970: 1_760_000_000 + seconds)
                ) {
                    $0.notes = notes
                    $0.geofenceId = fence
                    if let property { $0.properties = [property: PropertyValue(type: .text, value: "v")] }
                }
                ledger.created[event.id] = .init(client: client.name, kind: .event, parentType: typeId)
                return "\(name) \(event.id) type=\(typeId) fence=\(fence ?? "-") property=\(property ?? "-")"
            case .editEvent:
                guard let id = pickId(local.events) else { return "\(name): nothing to edit" }
                let notes = random.chance(0.2) ? nil : "edit \(Int.random(in: 0..<1000, using: &random))"
                let allDay = random.chance(0.3)
                _ = try await store.updateEvent(id: id) {
                    $0.notes = notes
                    $0.isAllDay = allDay
                }
                return "\(name) \(id) notes=\(notes ?? "nil") allDay=\(allDay)"
            case .deleteEvent:
                return try await deleteOne(local.events, store.deleteEvent(id:))
            case .createGeofence:
                let fence = try await store.createGeofence(
                    name: "Place \(Int.random(in: 0..<1000, using: &random))",
                    latitude: Double(Int.random(in: -80..<80, using: &random)),
                    longitude: Double(Int.random(in: -170..<170, using: &random)))
                ledger.created[fence.id] = .init(client: client.name, kind: .geofence, parentType: nil)
                return "\(name) \(fence.id)"
            case .editGeofence:
                guard let id = pickId(local.geofences) else { return "\(name): nothing to edit" }
                let radius = Double(Int.random(in: 50..<5000, using: &random))
                let entry = random.chance(0.3) ? pickId(local.types) : nil
                _ = try await store.updateGeofence(id: id) {
                    $0.radius = radius
                    $0.eventTypeEntryId = entry
                }
                return "\(name) \(id) radius=\(radius) entry=\(entry ?? "-")"
            case .deleteGeofence:
                return try await deleteOne(local.geofences, store.deleteGeofence(id:))
            case .createDefinition:
                guard let typeId = pickId(local.types) else { return "\(name): no type yet" }
                let key = "k\(Int.random(in: 0..<6, using: &random))"
                let definition = try await store.createPropertyDefinition(
                    eventTypeId: typeId, key: key, label: key.uppercased(), type: .text)
                ledger.created[definition.id] = .init(
                    client: client.name, kind: .propertyDefinition, parentType: typeId)
                return "\(name) \(definition.id) type=\(typeId) key=\(key)"
            case .editDefinition:
                guard let id = pickId(local.definitions) else { return "\(name): nothing to edit" }
                let label = "Label \(Int.random(in: 0..<100, using: &random))"
                _ = try await store.updatePropertyDefinition(id: id) { $0.label = label }
                return "\(name) \(id) label=\(label)"
            case .deleteDefinition:
                return try await deleteOne(local.definitions, store.deletePropertyDefinition(id:))
            case .sync:
                guard client.offlineFor == 0 else { return "\(name): offline, skipped" }
                if settings.instances > 1 { return "\(name) → \(await syncTogether(index))" }
                return "\(name) → \(try await sync(index))"
            case .goOffline:
                let stretch = Int.random(in: 3..<15, using: &random)
                clients[index].offlineFor = stretch
                return "\(name) for \(stretch) of its operations"
            case .retryDeadLetters:
                let revived = try await client.engine.retryDeadLetters()
                return "\(name): \(revived) revived"
            case .discardOne:
                let dead = try await client.engine.mutations(state: .failed)
                guard let mutation = random.pick(dead) else { return "\(name): no dead letter" }
                _ = try await client.engine.discardMutations(ids: [mutation.id])
                ledger.discarded[client.name, default: []].insert(mutation.entityId)
                return "\(name) \(mutation.operation) of \(mutation.entityId): \(mutation.lastError ?? "-")"
            }
        } catch let error as EventStoreError {
            return "\(name) refused locally: \(error)"
        } catch let error as DataStoreError {
            return "\(name) refused locally: \(error)"
        }
    }

    /// With several instances: client `index` and every other online device sync at once, so writes of one user
    /// reach the instances concurrently (the feed and idempotency under concurrent writers, docs/server.md).
    func syncTogether(_ index: Int) async -> String {
        let online = clients.indices.filter { $0 == index || clients[$0].offlineFor == 0 }
        let engines = online.map { clients[$0].engine }
        let reports = await withTaskGroup(of: (Int, SyncReport).self) { group in
            for (slot, engine) in engines.enumerated() { group.addTask { (slot, await engine.performSync()) } }
            var reports: [Int: SyncReport] = [:]
            for await (slot, report) in group { reports[slot] = report }
            return reports
        }
        var lines: [String] = []
        var wait = 0.0
        for (slot, client) in online.enumerated() {
            guard let report = reports[slot] else { continue }
            if case .rateLimited(let seconds) = report.outcome {
                if seconds > 5 { await clients[client].engine.resetCircuitBreaker() } else { wait = max(wait, seconds) }
            }
            lines.append(
                "\(clients[client].name): \(report.outcome) pushed \(report.pushed) pulled \(report.pulled) "
                    + "failed \(report.failed)")
        }
        clock.advance(by: wait)
        return "together: " + lines.joined(separator: "; ")
    }

    /// One `performSync()`; a quiet period is waited out on the clients' clock, and a tripped breaker is reset as
    /// a user would, so the run keeps moving without moving the clock minutes ahead.
    func sync(_ index: Int) async throws -> String {
        let report = await clients[index].engine.performSync()
        if case .rateLimited(let seconds) = report.outcome {
            if seconds > 5 { await clients[index].engine.resetCircuitBreaker() } else { clock.advance(by: seconds) }
        }
        return "\(report.outcome) pushed \(report.pushed) pulled \(report.pulled) failed \(report.failed)"
    }
}
