import Foundation
import GRDB
import Models
import Networking
import Persistence
import Protocols
import Sync
import TestSupport
import TrendyServer

/// One random step of a run: a local write, a sync, or a user's action on the queue.
enum Operation: String, CaseIterable {
    case createType, editType, deleteType
    case createEvent, editEvent, deleteEvent
    case createGeofence, editGeofence, deleteGeofence
    case createDefinition, editDefinition, deleteDefinition
    case sync, goOffline, retryDeadLetters, discardOne
    /// The name moves: a rename into the shared pool of names (offline renames to one name clash, R6); an event
    /// moved into a type that is then deleted (R7); an import of a deleted entity's earlier copy (api-v1 §7
    /// restores); a discard of a live change (R9); the device's two processes syncing at once (the sync lock) or
    /// editing two fields of one event at once; a full resync while another device deletes events (R11); an edit
    /// synced here and another of the same event synced elsewhere right after (a dropped answer followed by a later
    /// edit, R5).
    case renameType, moveThenDeleteType, restoreDeleted, discardLive, overlappingSyncs, concurrentEdits
    case bootstrapRacingDeletes, editElsewhereAfterSync
    /// The field-merge move: two devices edit one entity, different fields or the same one, each with a value no other
    /// write holds (`FieldLedger`), and sync in either order, or not yet (R1–R3).
    case mergeFields
    /// The duplicate-name move: a type whose create the server refused as a duplicate name (held by another device's type)
    /// is merged into the holder (`trendyctl types merge`): its events, definitions and geofence references move.
    /// `stageDuplicateType` makes such a pair on purpose (two devices create one new name, each with an event, a
    /// quarter of the time at one instant, which the merge must refuse whole), so merges happen in most runs.
    case mergeDuplicateType, stageDuplicateType
    /// More event creates than one batch holds (the proof's devices send 50 a batch): the push claims each batch
    /// while the one before it is on the wire and sends it when that one's answer is in (sync-engine §4.7.5), with
    /// the faults on — lost answers, 5xx and 429 between batches of one push.
    case createEventBurst
    /// A full resync while the server answers 500 to every property-definition list (`--fault-500-path
    /// /properties`): the bootstrap keeps each type's local definitions and notes the type to fetch again (S84), and
    /// the server goes back to the run's faults; later pulls fetch them again, and the quiet checks and the end
    /// compare the device once they have.
    case bootstrapWithoutDefinitions
    /// A device's `trendyctl sync` killed with SIGKILL at a random point (sync-engine §9 guarantees 1, 2 and 5 across a
    /// process death): the push's batch may be on the wire, its answer lost with the process, a page applied without
    /// its cursor; the device's next sync must replay and finish it (`ProofClient.killedCLISync`).
    case killedSync
    /// The server killed with SIGKILL while a device syncs (0–80 ms into the round), then started again on the same
    /// storage and port: a write may be committed without its answer, or never arrive, under any request of the
    /// round — an update's patch, a delete, a batch, a read-back — not only the creates of the crash test.
    case serverKilledMidSync
    /// The server backed up (`trendy-server backup` while it serves, or its file copied while it is stopped), and
    /// later put back (`trendy-server restore`, or the file copied back by hand) while the devices hold everything
    /// written since: they give it back (sync-engine R15), and the ledgers check that nothing acknowledged and held by
    /// a device is lost. One instance on SQLite; PostgreSQL's restore has its own end-to-end test.
    case backUpServer, restoreServer
    /// A create whose answer is lost, another device's delete or edit of it, then the server's file put back by hand
    /// from a copy taken before both (`lostCreateChangedThenCopy`): the create sent again to the copy must not outlive
    /// the delete, nor keep out the edit, given back after it (sync-engine R15 *Re-sent creates*). Made only with
    /// `TRENDY_PROOF_LOST_CREATE_MOVE=1`: the edit still meets an open case (docs/reliability.md, "Not yet
    /// covered"), and without it every seed makes the moves it made before the move existed.
    case lostCreateChangedThenCopy
    /// `trendy-server compact --older-than-days 0` beside the serving server (every instance's storage): each
    /// entity's older changes leave the log while devices hold cursors into it (api-v1 §6.8).
    case compactServer
    /// Another device of the account revokes this one (`trendyctl devices revoke`, api-v1 §16): its next round is
    /// refused and must keep everything it holds and has queued; then it signs in again as a new device (trendyctl's
    /// `login`), whose position no longer holds back compaction, and its queue goes out with its later rounds.
    case revokeDevice
    /// A device the server last saw longer ago than `--device-expiry-days` (its `last_seen_at` moved 100 days back in
    /// the server's file, as after months away), then `trendy-server compact`: compaction no longer keeps the changes
    /// at its position (api-v1 §6.8, §16), so its next round may meet a 410 and bootstrap, keeping its queue.
    case expireDevice

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
        case .renameType: 2
        case .moveThenDeleteType: 1
        case .restoreDeleted: 2
        case .discardLive: 1
        case .overlappingSyncs: 2
        case .concurrentEdits: 2
        case .bootstrapRacingDeletes: 1
        case .editElsewhereAfterSync: 2
        case .mergeFields: 6
        case .mergeDuplicateType: 6
        case .stageDuplicateType: 2
        case .createEventBurst: 2
        case .bootstrapWithoutDefinitions: 1
        case .killedSync: 3
        case .serverKilledMidSync: 2
        case .backUpServer: 2
        case .restoreServer: 1
        case .lostCreateChangedThenCopy:
            ProcessInfo.processInfo.environment["TRENDY_PROOF_LOST_CREATE_MOVE"] == "1" ? 1 : 0
        case .compactServer: 2
        case .revokeDevice: 1
        case .expireDevice: 1
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
        /// Counts the move as made (the run prints how often each was) and returns its log line.
        func acted(_ line: String) -> String {
            moves[operation.rawValue, default: 0] += 1
            return line
        }
        /// Deletes one of `values` with `delete` and records it in the ledger.
        func deleteOne<Value>(_ values: [String: Value], _ delete: (String) async throws -> Void) async throws -> String
        {
            guard let id = pickId(values) else { return "\(name): nothing to delete" }
            try await delete(id)
            ledger.deleted[id] = client.name
            return acted("\(name) \(id)")
        }
        /// Records a create in the ledger.
        func created(_ id: String, _ kind: MutationEntityType, parent: String? = nil, _ detail: String = "") -> String {
            ledger.created[id] = .init(client: client.name, kind: kind, parentType: parent)
            return acted("\(name) \(id)\(detail)")
        }
        /// Records an edit whose `field` this device's value now holds until it syncs.
        func edited(_ id: String, _ field: String, _ detail: String) -> String {
            fields.superseded(field, of: id, on: client.name)
            return acted("\(name) \(id) \(detail)")
        }
        /// Discards one mutation picked among those in `state`, and records it.
        func discardOne(in state: MutationState) async throws -> PendingMutation? {
            guard let mutation = random.pick(try await client.engine.mutations(state: state)) else { return nil }
            _ = try await client.engine.discardMutations(ids: [mutation.id])
            ledger.discarded[client.name, default: []].insert(mutation.entityId)
            fields.dropPending(of: mutation.entityId, on: client.name)
            return mutation
        }
        do {
            switch operation {
            case .createType:
                // A small pool of names, so two devices sometimes create the same name: a conflict to resolve.
                let type = try await store.createEventType(
                    name: "Type \(Int.random(in: 0..<12, using: &random))",
                    color: random.pick(["red", "green", "blue"]) ?? "red")
                return created(type.id, .eventType, " \(type.name)")
            case .editType:
                guard let id = pickId(local.types) else { return "\(name): nothing to edit" }
                let icon = "icon-\(Int.random(in: 0..<100, using: &random))"
                _ = try await store.updateEventType(id: id) { $0.icon = icon }
                return edited(id, "icon", "icon=\(icon)")
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
                return created(
                    event.id, .event, parent: typeId,
                    " type=\(typeId) fence=\(fence ?? "-") property=\(property ?? "-")")
            case .bootstrapWithoutDefinitions:
                guard client.offlineFor == 0, servers.count == 1 else { return "\(name): skipped" }
                // Only this fault: the run's 500s would end most such bootstraps before their definition reads.
                var failing = FaultConfiguration.none
                failing.failingPathSuffix = "/properties"
                let seed = settings.seed &+ UInt64(Int.random(in: 0..<1_000_000, using: &random))
                servers[0] = try await servers[0].restart(faults: failing, seed: seed)
                let report = await client.fullResync()
                let unfetched = try client.hasUnfetchedDefinitions()
                servers[0] = try await servers[0].restart(faults: settings.faults, seed: seed &+ 1)
                serverRestarts += 2
                return acted(
                    "\(name) \(report.outcome.name) \(report.message ?? ""); definitions left to fetch again: \(unfetched)"
                )
            case .createEventBurst:
                guard let typeId = pickId(local.types) else { return "\(name): no type yet" }
                let count = Int.random(in: 60...140, using: &random)
                // Seconds apart from single creates' instants; two bursts of one type may overlap: those are refused.
                let start = 1_762_000_000 + Double(Int.random(in: 0..<2_000_000, using: &random))
                var made = 0
                for offset in 0..<count {
                    let timestamp = Date(timeIntervalSince1970: start + Double(offset))
                    guard let event = try? await store.createEvent(eventTypeId: typeId, timestamp: timestamp) else {
                        continue
                    }
                    ledger.created[event.id] = .init(client: client.name, kind: .event, parentType: typeId)
                    made += 1
                }
                return acted("\(name) \(made) events of type \(typeId) from \(start)")
            case .editEvent:
                guard let id = pickId(local.events) else { return "\(name): nothing to edit" }
                let notes = random.chance(0.2) ? nil : "edit \(Int.random(in: 0..<1000, using: &random))"
                let allDay = random.chance(0.3)
                _ = try await store.updateEvent(id: id) {
                    $0.notes = notes
                    $0.isAllDay = allDay
                }
                return edited(id, "notes", "notes=\(notes ?? "nil") allDay=\(allDay)")
            case .deleteEvent:
                return try await deleteOne(local.events, store.deleteEvent(id:))
            case .createGeofence:
                let fence = try await store.createGeofence(
                    name: "Place \(Int.random(in: 0..<1000, using: &random))",
                    latitude: Double(Int.random(in: -80..<80, using: &random)),
                    longitude: Double(Int.random(in: -170..<170, using: &random)))
                return created(fence.id, .geofence)
            case .editGeofence:
                guard let id = pickId(local.geofences) else { return "\(name): nothing to edit" }
                let radius = Double(Int.random(in: 50..<5000, using: &random))
                let entry = random.chance(0.3) ? pickId(local.types) : nil
                _ = try await store.updateGeofence(id: id) {
                    $0.radius = radius
                    $0.eventTypeEntryId = entry
                }
                return edited(id, "radius", "radius=\(radius) entry=\(entry ?? "-")")
            case .deleteGeofence:
                return try await deleteOne(local.geofences, store.deleteGeofence(id:))
            case .createDefinition:
                guard let typeId = pickId(local.types) else { return "\(name): no type yet" }
                let key = "k\(Int.random(in: 0..<6, using: &random))"
                let definition = try await store.createPropertyDefinition(
                    eventTypeId: typeId, key: key, label: key.uppercased(), type: .text)
                return created(definition.id, .propertyDefinition, parent: typeId, " type=\(typeId) key=\(key)")
            case .editDefinition:
                guard let id = pickId(local.definitions) else { return "\(name): nothing to edit" }
                let label = "Label \(Int.random(in: 0..<100, using: &random))"
                _ = try await store.updatePropertyDefinition(id: id) { $0.label = label }
                return edited(id, "label", "label=\(label)")
            case .deleteDefinition:
                return try await deleteOne(local.definitions, store.deletePropertyDefinition(id:))
            case .sync:
                guard client.offlineFor == 0 else { return "\(name): offline, skipped" }
                if settings.instances > 1 { return acted("\(name) → \(await syncTogether(index))") }
                return acted("\(name) → \(try await sync(index))")
            case .goOffline:
                let stretch = Int.random(in: 3..<15, using: &random)
                clients[index].offlineFor = stretch
                return acted("\(name) for \(stretch) of its operations")
            case .retryDeadLetters:
                // A give-back the restored server refused is kept as the device's whole row (R15); sent again by the
                // user's choice, it replaces what other devices wrote since to its other fields.
                for dead in try await client.engine.mutations(state: .failed)
                where dead.lastError?.hasPrefix(PendingMutation.refusedGiveBackPrefix) == true {
                    ledger.sentWholeByChoice.insert(dead.entityId)
                }
                let revived = try await client.engine.retryDeadLetters()
                return acted("\(name): \(revived) revived")
            case .discardOne:
                guard let mutation = try await discardOne(in: .failed) else { return "\(name): no dead letter" }
                return acted("\(name) \(mutation.operation) of \(mutation.entityId): \(mutation.lastError ?? "-")")
            case .renameType:
                guard let id = pickId(local.types) else { return "\(name): nothing to rename" }
                let newName = "Type \(Int.random(in: 0..<12, using: &random))"
                _ = try await store.updateEventType(id: id) { $0.name = newName }
                return acted("\(name) \(id) to \(newName)")
            case .moveThenDeleteType:
                guard let eventId = pickId(local.events), let event = local.events[eventId],
                    let target = random.pick(local.types.keys.filter { $0 != event.eventTypeId }.sorted())
                else { return "\(name): no event and other type" }
                _ = try await store.updateEvent(id: eventId) { $0.eventTypeId = target }
                try await store.deleteEventType(id: target)
                ledger.deleted[target] = client.name
                ledger.deleted[eventId] = client.name
                return acted("\(name) \(eventId) into \(target), then \(target) deleted")
            case .restoreDeleted:
                let candidates = ledger.deleted.keys.filter { client.exported[$0] != nil && !local.allIds.contains($0) }
                guard let id = random.pick(candidates.sorted()), let copy = client.exported[id] else {
                    return "\(name): nothing deleted to restore"
                }
                var batch = ImportBatch()
                switch copy {
                case .eventType(let type): batch.eventTypes = [type]
                case .event(let event): batch.events = [event]
                case .geofence(let fence): batch.geofences = [fence]
                }
                _ = try await store.importEntities(batch, dryRun: false)
                ledger.restored.insert(id)
                return acted("\(name) restored \(id) from its earlier copy")
            case .discardLive:
                guard let mutation = try await discardOne(in: .pending) else { return "\(name): nothing queued" }
                return acted("\(name) \(mutation.operation) of \(mutation.entityId)")
            case .overlappingSyncs:
                guard client.offlineFor == 0 else { return "\(name): offline, skipped" }
                async let first = client.sync()
                async let second = client.sync(twin: true)
                let (one, other) = await (first, second)
                var wait = 0.0
                for report in [one, other] {
                    if case .rateLimited(let seconds) = report.outcome {
                        if seconds > 5 { await client.engine.resetCircuitBreaker() } else { wait = max(wait, seconds) }
                    }
                }
                clock.advance(by: wait)
                return acted("\(name) → \(one.outcome) and, after waiting for the lock, \(other.outcome)")
            case .killedSync:
                guard client.offlineFor == 0 else { return "\(name): offline, skipped" }
                // trendyctl starts in about 50 ms and most rounds here take 20–100 ms: up to 150 ms, the kill lands
                // before, during and after the transfer (the move totals count the rounds that ended first).
                let delay = Int.random(in: 0...150, using: &random)
                let (killed, line) = try await client.killedCLISync(afterMilliseconds: delay)
                if !killed { moves["killedSync ended before its kill", default: 0] += 1 }
                return acted("\(name): \(line)")
            case .serverKilledMidSync:
                guard client.offlineFor == 0 else { return "\(name): offline, skipped" }
                let delay = Int.random(in: 0...80, using: &random)
                // Behind the balancer, one instance of the two: PostgreSQL rolls back what it was writing, and the
                // device's round meets the death only when its lane leads there.
                let victim = Int.random(in: 0..<servers.count, using: &random)
                let seed = ProofServer.instanceSeed(
                    settings.seed &+ UInt64(Int.random(in: 0..<1_000_000, using: &random)), victim)
                async let round = client.sync()
                try await Task.sleep(for: .milliseconds(delay))
                await servers[victim].crash()
                servers[victim] = try await servers[victim].restart(faults: settings.faults, seed: seed)
                serverRestarts += 1
                let report = await round
                if case .synced = report.outcome {
                    moves["serverKilledMidSync after its round", default: 0] += 1
                }
                return acted(
                    "\(name): trendy-server \(victim) killed \(delay) ms into a round, started again; the round: "
                        + "\(report.outcome.name) pushed \(report.pushed) pulled \(report.pulled)")
            case .backUpServer:
                guard servers.count == 1 else { return "\(name): skipped (several instances)" }
                return acted("\(name): \(try await backUpServer())")
            case .restoreServer:
                guard servers.count == 1, let line = try await restoreServer() else { return "\(name): no backup" }
                return acted("\(name): \(line)")
            case .lostCreateChangedThenCopy:
                return acted("\(name): \(try await lostCreateChangedThenCopy(index))")
            case .compactServer:
                guard let compacted = try await compactServer() else {
                    return "\(name): skipped, the feed could not be read whole"
                }
                return acted("\(name): \(compacted)")
            case .expireDevice:
                guard servers.count == 1, !client.isLive, client.offlineFor == 0 else {
                    return "\(name): several instances, live or offline, skipped"
                }
                guard let line = try await expireAndCompact(index) else {
                    return "\(name): skipped, the feed could not be read whole"
                }
                return acted("\(name): \(line)")
            case .revokeDevice:
                // A live device's engine keeps its stream and its own tokens; the move is the other devices'.
                guard !client.isLive, client.offlineFor == 0 else { return "\(name): live or offline, skipped" }
                return acted("\(name): \(try await revokeAndSignInAgain(index))")
            case .concurrentEdits:
                guard let id = pickId(local.events) else { return "\(name): nothing to edit" }
                let notes = "both \(Int.random(in: 0..<1000, using: &random))"
                let value = PropertyValue(type: .text, value: .string("p\(Int.random(in: 0..<1000, using: &random))"))
                let twin = client.twinEvents
                async let first = store.updateEvent(id: id) { $0.notes = notes }
                async let second = twin.updateEvent(id: id) { $0.properties["both"] = value }
                _ = try await (first, second)
                fields.superseded("notes", of: id, on: client.name)
                let row = try store.event(id: id)
                if row?.notes != notes || row?.properties["both"] != value {
                    localViolations.append(
                        "\(client.name): one of two concurrent edits of \(id) was lost: \(String(describing: row))")
                }
                return acted("\(name) \(id) notes and a property at once")
            case .bootstrapRacingDeletes:
                guard client.offlineFor == 0, clients.count > 1 else { return "\(name): offline, skipped" }
                let otherIndex = (index + 1 + Int.random(in: 0..<(clients.count - 1), using: &random)) % clients.count
                let other = clients[otherIndex]
                let victims = Array(try other.entities().events.keys.sorted().prefix(3))
                for id in victims { ledger.deleted[id] = other.name }
                async let resync = client.fullResync()
                async let deletes: SyncReport? = {
                    for id in victims { try? await other.events.deleteEvent(id: id) }
                    return other.offlineFor == 0 ? await other.sync() : nil
                }()
                let (report, _) = await (resync, deletes)
                if case .rateLimited = report.outcome { await client.engine.resetCircuitBreaker() }
                if client.isLive { moves["bootstrapBesideLiveStream", default: 0] += 1 }
                return acted("\(name) full resync → \(report.outcome) while \(other.name) deleted \(victims.count)")
            case .editElsewhereAfterSync:
                guard clients.count > 1, let id = pickId(local.events) else { return "\(name): nothing to edit" }
                let other = clients[(index + 1) % clients.count]
                guard try other.entities().events[id] != nil else { return "\(name): \(id) not on the other device" }
                let mine = "here \(Int.random(in: 0..<1000, using: &random))"
                let theirs = "there \(Int.random(in: 0..<1000, using: &random))"
                _ = try await store.updateEvent(id: id) { $0.notes = mine }
                fields.superseded("notes", of: id, on: client.name)
                let here = client.offlineFor == 0 ? await client.sync() : nil
                _ = try await other.events.updateEvent(id: id) { $0.notes = theirs }
                fields.superseded("notes", of: id, on: other.name)
                let there = other.offlineFor == 0 ? await other.sync() : nil
                for (device, report) in [(client, here), (other, there)] {
                    if case .rateLimited? = report?.outcome { await device.engine.resetCircuitBreaker() }
                }
                return acted(
                    "\(name) \(id) notes=\(mine) → \(here.map { "\($0.outcome)" } ?? "offline"); \(other.name) "
                        + "notes=\(theirs) → \(there.map { "\($0.outcome)" } ?? "offline")")
            case .mergeFields:
                return try await mergeFields(on: index, local: local).map(acted) ?? "\(name): nothing on two devices"
            case .stageDuplicateType:
                guard clients.count > 1 else { return "\(name): one device" }
                let otherIndex = (index + 1 + Int.random(in: 0..<(clients.count - 1), using: &random)) % clients.count
                let other = clients[otherIndex]
                let typeName = "Twin \(Int.random(in: 0..<1_000_000, using: &random))"
                let mine = try await store.createEventType(name: typeName, color: "red")
                let theirs = try await other.events.createEventType(name: typeName, color: "blue")
                ledger.created[mine.id] = .init(client: client.name, kind: .eventType, parentType: nil)
                ledger.created[theirs.id] = .init(client: other.name, kind: .eventType, parentType: nil)
                let instant = Date(
                    timeIntervalSince1970: 1_760_000_000 + Double(Int.random(in: 0..<2_000_000, using: &random)))
                let clash = random.chance(0.25)
                let here = try await store.createEvent(eventTypeId: mine.id, timestamp: instant)
                let there = try await other.events.createEvent(
                    eventTypeId: theirs.id, timestamp: clash ? instant : instant.addingTimeInterval(1))
                ledger.created[here.id] = .init(client: client.name, kind: .event, parentType: mine.id)
                ledger.created[there.id] = .init(client: other.name, kind: .event, parentType: theirs.id)
                return acted(
                    "\(name) \(typeName): \(mine.id) here, \(theirs.id) on \(other.name)\(clash ? ", events at one instant" : "")"
                )
            case .mergeDuplicateType:
                let refused = try await client.engine.mutations(state: .failed).compactMap {
                    mutation -> (String, String)? in
                    guard mutation.entityType == .eventType, mutation.operation == .create,
                        let holder = mutation.lastError?.components(separatedBy: "held on the server by ").last,
                        mutation.lastError?.contains("held on the server by ") == true,
                        local.types[holder] != nil, local.types[mutation.entityId] != nil
                    else { return nil }
                    return (mutation.entityId, holder)
                }
                guard let (source, target) = random.pick(refused) else { return "\(name): no refused duplicate" }
                let moved = local.events.filter { $0.value.eventTypeId == source }.map(\.key)
                let merge = try await store.mergeEventType(source, into: target)
                ledger.deleted[source] = client.name
                // The source's definitions the target lacked come back as new definitions of the target: created here.
                for id in try client.entities().definitions.keys where local.definitions[id] == nil {
                    ledger.created[id] = .init(client: client.name, kind: .propertyDefinition, parentType: target)
                }
                for id in moved {
                    if let creation = ledger.created[id] {
                        ledger.created[id] = .init(client: creation.client, kind: creation.kind, parentType: target)
                    }
                }
                return acted(
                    "\(name) \(source) into \(target): \(merge.events) events, \(merge.propertyDefinitions) definitions, "
                        + "\(merge.geofences) geofences")
            }
        } catch let error as EventStoreError {
            moves["\(operation.rawValue) refused locally", default: 0] += 1
            return "\(name) refused locally: \(error)"
        } catch let error as DataStoreError {
            moves["\(operation.rawValue) refused locally", default: 0] += 1
            return "\(name) refused locally: \(error)"
        }
    }

    /// With several instances: client `index` and every other online device sync at once, so writes of one user
    /// reach the instances concurrently (the feed and idempotency under concurrent writers, docs/server.md).
    func syncTogether(_ index: Int) async -> String {
        let online = clients.indices.filter { $0 == index || clients[$0].offlineFor == 0 }
        let devices = online.map { clients[$0] }
        // A struct child result, never a tuple (docs/reliability.md, "Optimizer defects and their shapes").
        struct SlotReport: Sendable {
            let slot: Int
            let report: SyncReport
        }
        let reports = await withTaskGroup(of: SlotReport.self) { group in
            for (slot, device) in devices.enumerated() {
                group.addTask {
                    let report = await device.sync()
                    return SlotReport(slot: slot, report: report)
                }
            }
            var reports: [Int: SyncReport] = [:]
            for await answer in group { reports[answer.slot] = answer.report }
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
        let report = await clients[index].sync()
        if case .rateLimited(let seconds) = report.outcome {
            if seconds > 5 { await clients[index].engine.resetCircuitBreaker() } else { clock.advance(by: seconds) }
        }
        return "\(report.outcome) pushed \(report.pushed) pulled \(report.pulled) failed \(report.failed)"
    }
}

extension ConvergenceRun {
    /// The revoke move: the device is revoked through the server it talks to (the faults on: a few tries), its next
    /// round must be refused without losing a queued change, and it signs in again as a new device.
    /// `trendy-server compact --older-than-days 0` on the first instance's storage, the feed read whole first (the
    /// server injects faults: a few tries) for the verdict; no write runs between the read and the compaction, as the
    /// moves run one at a time. Nil when the feed could not be read.
    func compactServer() async throws -> String? {
        var feed: [ChangeEntry]?
        for _ in 0..<20 where feed == nil { feed = try? await serverFeed(servers[0]) }
        guard let feed else { return nil }
        for entry in feed { feedBeforeCompactions[entry.id] = entry }
        return try await servers[0].compact()
    }

    /// `expireDevice`: client `index`'s device last seen 100 days ago in the server's file, a compaction, then the
    /// device's round, which must keep every queued change it did not push.
    func expireAndCompact(_ index: Int) async throws -> String? {
        let client = clients[index]
        let device = try client.stores.storage.deviceIdentity().id.uuidString.lowercased()
        let longAgo = Date().millisecondsSince1970 - 100 * 86_400_000
        let expired = try SQLiteFile(servers[0].database).execute(
            "UPDATE devices SET last_seen_at = ? WHERE device_id = ?", arguments: [longAgo, device])
        guard let compacted = try await compactServer() else { return nil }
        let queued = try client.stores.saved { try $0.fetchPendingMutations() }
        let report = await client.sync()
        // The position compaction removed may answer 410 and the bootstrap that follows gives back first: a create
        // whose answer was lost goes back with it, and leaves the queue as answered, uncounted (sync-engine R15). Either
        // way the device keeps the entity: no queued create's row may be gone after the round (the verdict checks the
        // server's side).
        let held = try client.entities().allIds
        let lost = queued.filter { $0.operation == .create && !held.contains($0.entityId) }
        if !lost.isEmpty {
            localViolations.append(
                "\(client.name): its expired device's round took away entities it had queued creates for: "
                    + "\(lost.map(\.entityId))")
        }
        if report.outcome.bootstrapped { moves["expireDevice then a bootstrap", default: 0] += 1 }
        return "device \(device) last seen 100 days ago (\(expired) row); \(compacted); round \(report.outcome.name)"
    }

    func revokeAndSignInAgain(_ index: Int) async throws -> String {
        let client = clients[index]
        let device = try client.stores.storage.deviceIdentity().id
        let account = APIClient(
            configuration: try APIClient.Configuration(serverRoot: client.root, maxRateLimitRetries: 1),
            tokenProvider: StaticTokenProvider(client.token), clock: clock)
        var revoked = false
        var refusal = ""
        for _ in 0..<10 where !revoked {
            do {
                try await account.revokeDevice(id: device)
                revoked = true
            } catch {
                refusal = "\(error)"
                // 404: the server has not seen this device yet (a device records itself with its first request).
                if case .http(let failure) = error, failure.status == 404 { break }
            }
        }
        let queued = try client.stores.saved { try $0.fetchPendingMutations().map(\.id) }
        let report = await client.sync()
        let kept = Set(try client.stores.saved { try $0.fetchPendingMutations().map(\.id) })
        if revoked, case .synced = report.outcome {
            localViolations.append("\(client.name): a round of its revoked device \(device) was served")
        }
        let dropped = queued.filter { !kept.contains($0) }
        if revoked, !dropped.isEmpty {
            localViolations.append("\(client.name): its revoked device's round dropped queued changes \(dropped)")
        }
        // Signed in again, as `trendyctl login` does for a device the server refused as revoked (or may have: a
        // revoke whose every answer was lost).
        try client.stores.storage.markDeviceRevoked(at: clock.now())
        let renewed = try client.stores.storage.renewDeviceIdentityIfRevoked()
        var again = try ProofClient(
            name: client.name, directory: client.directory, root: client.root, token: client.token, clock: clock)
        again.offlineFor = client.offlineFor
        again.exported = client.exported
        clients[index] = again
        let answer = revoked ? "revoked" : "not revoked (\(refusal))"
        return "\(answer) \(device), round \(report.outcome), signed in again as \(renewed?.uuidString ?? "?")"
    }
}
