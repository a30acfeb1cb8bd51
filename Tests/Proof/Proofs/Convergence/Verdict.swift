import Foundation
import Models
import Persistence
import Protocols
import Sync

extension ConvergenceRun {
    /// The first broken guarantee, or nil. Checked in order: nothing left to push; convergence field by field;
    /// no duplicate; no resurrection; no lost write.
    func verdict(server: Entities, diagnosisServer: ProofServer) async throws -> String? {
        if let violation = localViolations.first { return violation }
        var locals: [(ProofClient, Entities, [PendingMutation])] = []
        for client in clients {
            let queue = try await client.engine.mutations()
            // A live change may stay only behind a dead letter it depends on (sync-engine §4.4: it waits for its
            // parent).
            let dead = Set(queue.filter(\.isDeadLetter).map(\.entityId))
            for live in queue where live.isLive && dead.isDisjoint(with: Self.dependencies(of: live)) {
                return "\(client.name) still has a live \(live.operation) of \(live.entityId) after settling, "
                    + "blocked by nothing"
            }
            if let silent = queue.first(where: { ($0.lastError ?? "").isEmpty }) {
                return "\(client.name) has a dead letter for \(silent.entityId) without a reason"
            }
            // R4: once settled, an entity is owed only while a dead letter holds it back, its own or the one its
            // read-back waits for (`after`: a parent's change goes first).
            let held = Set(queue.map(\.entityId))
            if let owed = try client.stores.makeDataStore().owedEntities().first(where: {
                !held.contains($0.id) && !($0.after.map(held.contains) ?? false)
            }) {
                let message =
                    "\(client.name) still owes a read-back of \(owed.entityType.rawValue) \(owed.id) after "
                    + "settling (after \(owed.after ?? "-"); the queue: "
                    + queue.map { "\($0.operation) \($0.entityType.rawValue) \($0.entityId): \($0.lastError ?? "-")" }
                    .joined(separator: "; ") + ")"
                return message + "\n" + (try await diagnosis(of: message, server: diagnosisServer))
            }
            locals.append((client, try client.entities(), queue))
        }
        for (client, local, queue) in locals {
            // Entities with a dead letter here keep the local edit by design (sync-engine §9.1: visible, not
            // overwritten).
            let held = Set(queue.map(\.entityId))
            if let divergence = Entities.firstDifference(client.name, local, server, skipping: held) {
                return divergence + "\n" + (try await diagnosis(of: divergence, server: diagnosisServer))
            }
        }
        for id in server.allIds where ledger.created[id] == nil {
            return "the server holds \(id), which no device created: a duplicate"
        }
        for (id, deleter) in ledger.deleted.sorted(by: { $0.key < $1.key }) {
            let gaveUp = locals.first { $0.0.name == deleter }?.2.contains { $0.entityId == id } ?? false
            // A restore (api-v1 §7) brings a deleted id back on purpose; convergence still holds it to the server.
            if gaveUp || ledger.wasDiscarded(id) || ledger.restored.contains(id) { continue }
            if server.allIds.contains(id) {
                let resurrection = "\(id), deleted on \(deleter), is on the server again"
                return resurrection + "\n" + (try await diagnosis(of: resurrection, server: diagnosisServer))
            }
            for (client, local, queue) in locals
            where local.allIds.contains(id) && !queue.contains(where: { $0.entityId == id }) {
                return "\(id), deleted on \(deleter), came back on \(client.name)"
            }
        }
        // R1–R3: no acknowledged field value lost, none overwritten by a stale one (FieldLedger).
        let ledger = ledger
        // The feed now, with what compactions removed from it before (api-v1 §6.8).
        var everyChange = feedBeforeCompactions
        for entry in try await serverFeed(diagnosisServer) { everyChange[entry.id] = entry }
        let feed = everyChange.keys.sorted().compactMap { everyChange[$0] }
        // A version the restored server refused is kept on its device as a dead letter, for the user to settle
        // (sync-engine R15): held there, not lost, as device-chaos judges it.
        let refusedHere = Set(
            locals.flatMap { $0.2 }.filter { mutation in
                mutation.isDeadLetter
                    && ((mutation.lastError ?? "").hasPrefix(PendingMutation.refusedGiveBackPrefix)
                        || (mutation.operation == .create && mutation.heldOnServerBy != nil))
            }.map { $0.entityId.lowercased() })
        let lost = fields.firstViolation(feed: feed) { id in
            ledger.wasDeleted(id) || ledger.wasDiscarded(id) || ledger.restored.contains(id)
                || ledger.sentWholeByChoice.contains(id) || refusedHere.contains(id.lowercased())
        }
        if let lost { return lost + "\n" + (try await diagnosis(of: lost, server: diagnosisServer)) }
        // R10: every device proves itself against the server's digest; one without queued work or debts verifies
        // with nothing to repair (a repair would be a difference the checks above missed), one with a dead letter
        // is blocked by it. One settled device first has a row changed, removed or added behind its engine's back:
        // it must find that one and equal the server again.
        let tampered = try tamper(locals)
        if let tampered {
            moves["tamperThenVerify", default: 0] += 1
            moves["tamperedRows", default: 0] += tampered.entities.count
        }
        for (client, _, queue) in locals {
            let verification = await client.engine.verify()
            // Each tampered entity is repaired by its read-back, or already by the round `verify()` starts with (a
            // geofence refresh rewrites every geofence); either way the device must equal the server after.
            let expected = client.name == tampered?.device ? 0...(tampered?.entities.count ?? 0) : 0...0
            let context =
                tampered.map { $0.device == client.name ? " after \($0.what.joined(separator: "; "))" : "" } ?? ""
            switch verification.result {
            case .verified(let repaired) where expected.contains(repaired) && queue.isEmpty: break
            case .blocked where !queue.isEmpty: continue
            default:
                return
                    "\(client.name): verify() after settling\(context): \(verification.result) (queue \(queue.count))"
            }
            if expected.upperBound > 0,
                let divergence = Entities.firstDifference(client.name, try client.entities(), server, skipping: [])
            {
                return "verify() said it verified\(context): " + divergence
            }
        }
        for (id, creation) in ledger.created.sorted(by: { $0.key < $1.key }) {
            if server.allIds.contains(id) || ledger.wasDeleted(id) || ledger.wasDiscarded(id) { continue }
            let creator = locals.first { $0.0.name == creation.client }
            let deadLetter = creator?.2.first { $0.entityId == id || $0.entityId == creation.parentType }
            if deadLetter == nil {
                let lost =
                    "\(creation.kind) \(id) created on \(creation.client) never reached the server and has no "
                    + "dead letter: a lost write"
                return lost + "\n" + (try await diagnosis(of: lost, server: diagnosisServer))
            }
        }
        return nil
    }

    /// The entity itself and the parents its payload names.
    static func dependencies(of mutation: PendingMutation) -> Set<String> {
        var ids: Set<String> = [mutation.entityId]
        if let payload = mutation.payload,
            case .object(let fields)? = try? JSONCoding.decode(JSONValue.self, from: payload)
        {
            for key in ["event_type_id", "geofence_id", "event_type_entry_id", "event_type_exit_id"] {
                if case .string(let id)? = fields[key] { ids.insert(id.lowercased()) }
            }
        }
        return ids
    }
}
