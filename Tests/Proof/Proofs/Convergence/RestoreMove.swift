import Foundation
import Models
import Persistence
import Protocols
import Sync

/// A copy of the server's database that the restore move can put back (sync-engine R15, docs/server.md "Backups
/// and restores").
struct ServerBackup {
    let path: String
    /// Made by `trendy-server backup` (the copy starts a new history when served), or copied by hand while the server
    /// was stopped (nothing marks it: devices find the loss by the feed's times, or by one verify).
    let marked: Bool
    /// The highest change id the copy holds: later ids on a restored server are writes made after the restore.
    let restorePoint: Int64
    /// What the field ledger had seen acknowledged when the copy was taken: all of it is in the copy.
    let acknowledged: [FieldLedger.Key: Set<JSONValue>]
    /// When the copy was taken (the servers' clock is the wall clock): versions acknowledged later are not in it.
    let takenAt: Date
}

extension ConvergenceRun {
    /// Backs the server up, with `trendy-server backup` while it serves, or (one time in three) by copying its file
    /// while it is stopped. A later backup replaces the earlier one.
    func backUpServer() async throws -> String {
        // What the ledger sees acknowledged now was committed before the copy starts.
        try acknowledgeFieldWrites()
        let directory = URL(fileURLWithPath: servers[0].database).deletingLastPathComponent()
        let marked = !random.chance(0.33)
        let path = directory.appendingPathComponent(marked ? "backup.sqlite" : "copy.sqlite").path
        let seed = settings.seed &+ UInt64(Int.random(in: 0..<1_000_000, using: &random))
        let restorePoint: Int64
        if marked {
            try await servers[0].backUp(to: path)
            restorePoint = Int64(try SQLiteFile(path).count("SELECT COALESCE(MAX(id), 0) FROM changes"))
        } else {
            servers[0] = try await servers[0].copiedWhileStopped(to: path, faults: settings.faults, seed: seed)
            serverRestarts += 1
            restorePoint = Int64(try SQLiteFile(path).count("SELECT COALESCE(MAX(id), 0) FROM changes"))
        }
        backup = ServerBackup(
            path: path, marked: marked, restorePoint: restorePoint, acknowledged: fields.acknowledged,
            takenAt: Date())
        return marked
            ? "trendy-server backup while serving, up to change \(restorePoint)"
            : "the stopped server's file copied by hand, up to change \(restorePoint)"
    }

    /// Puts the last backup back while the devices hold everything written since: with `trendy-server restore`, or by
    /// copying the file over the stopped server's by hand. The devices give back what they hold (R15); after a copy
    /// of an unmarked file each owes one verify (docs/server.md: the data comes back after at most one
    /// `sync --verify`), which the quiet checks and the settling run.
    func restoreServer() async throws -> String? {
        guard let backup else { return nil }
        try acknowledgeFieldWrites()
        let debts = random.chance(0.5) ? try leaveReadBacksOwed(before: backup) : ""
        var held: [FieldLedger.Key: Set<JSONValue>] = [:]
        let keys = Array(fields.acknowledged.keys)
        for client in clients {
            let local = try client.entities()
            for key in keys {
                if let value = Self.fieldValue(key, in: local) { held[key, default: []].insert(value) }
            }
        }
        let method: ProofServer.RestoreMethod = backup.marked && random.chance(0.5) ? .command : .copy
        let seed = settings.seed &+ UInt64(Int.random(in: 0..<1_000_000, using: &random))
        let watches = liveWatches
        // Half the time a device's `sync --full` runs across the restore: its listing may come from one history and
        // its pages from the other, and a snapshot of both must not be applied (sync-engine §5.2 step 4).
        let spanning = random.chance(0.5) ? random.pick(clients.filter { $0.offlineFor == 0 }) : nil
        async let across = Self.fullResync(of: spanning)
        servers[0] = try await servers[0].restored(
            from: backup.path, by: method, faults: settings.faults, seed: seed,
            whileStopped: { for watch in watches { watch.serverWentBack() } })
        serverRestarts += 1
        if let report = await across {
            moves["restoreServer across a sync --full", default: 0] += 1
            if report.outcome.bootstrapped {
                moves["restoreServer across a sync --full that bootstrapped", default: 0] += 1
            }
            if case .rateLimited = report.outcome, let spanning { await spanning.engine.resetCircuitBreaker() }
        }
        fields.serverRestored(
            acknowledgedAtBackup: backup.acknowledged, held: held, restorePoint: backup.restorePoint)
        // Changes after the backup's are gone with the history that had them; their ids are handed out again.
        feedBeforeCompactions = feedBeforeCompactions.filter { $0.key <= backup.restorePoint }
        if !backup.marked { verifyOwed = Set(clients.map(\.name)) }
        let how = method == .command ? "trendy-server restore" : "a copy by hand"
        return "the server went back to its \(backup.marked ? "backup" : "hand-made copy") (change "
            + "\(backup.restorePoint)) by \(how)\(backup.marked ? "" : "; every device owes a verify")\(debts)"
    }

    /// `client`'s full resync; nil without a client.
    private static func fullResync(of client: ProofClient?) async -> SyncReport? {
        guard let client else { return nil }
        return await client.fullResync()
    }

    /// One device as a round leaves it that stopped between replayed answers and their read-backs (R5): up to three
    /// entities it holds acknowledged since the backup, with nothing queued, owed a read-back when the server goes
    /// back. Half the time, before a copy put back by hand, the device last pulled at the copy's last change, so
    /// that its position still holds there and nothing but the read-back's 404 tells it of the loss. Read back from a
    /// server that lost them, the entities must be given back, not taken away (sync-engine R4, R15).
    private func leaveReadBacksOwed(before backup: ServerBackup) throws -> String {
        let client = clients[Int.random(in: 0..<clients.count, using: &random)]
        // Read before the store below opens its unit of work, which holds the database's write lock until saved.
        let held = try client.entities().allIds
        let copyEnd =
            backup.restorePoint > 0
            ? try SQLiteFile(backup.path).count("SELECT created_at FROM changes WHERE id = \(backup.restorePoint)") : 0
        let store = client.stores.makeDataStore()
        let queued = Set(try store.fetchPendingMutations().map(\.entityId))
        let candidates = try store.acknowledgedVersions(ids: nil)
            .filter { !$0.deleted && $0.acknowledgedAt > backup.takenAt }
            .filter { !queued.contains($0.id) && held.contains($0.id) }
            .sorted { $0.id < $1.id }.shuffled(using: &random).prefix(3)
        for version in candidates { try store.markOwed(version.entityType, id: version.id, reason: .replayed) }
        var state = try store.loadEngineState()
        let pulledAtCopyEnd =
            !candidates.isEmpty && !backup.marked && copyEnd > 0 && state.cursor >= backup.restorePoint
            && random.chance(0.5)
        if pulledAtCopyEnd {
            state.position = FeedPosition(
                cursor: backup.restorePoint, createdAt: Date(millisecondsSince1970: Int64(copyEnd)))
            try store.saveEngineState(state)
        }
        try store.save()
        moves["restoreServer with read-backs owed", default: 0] += candidates.count
        if pulledAtCopyEnd { moves["restoreServer with read-backs owed, the position in the copy", default: 0] += 1 }
        guard !candidates.isEmpty else { return "" }
        return "; \(client.name) owed \(candidates.count) read-backs first"
            + (pulledAtCopyEnd ? ", its position the copy's last change" : "")
    }

    /// Runs the verify a device owes since an unmarked copy was restored; true once one compared with the server
    /// (a blocked verify gives back too, R10), false while none could.
    func verifyIfOwed(_ index: Int) async -> Bool {
        let client = clients[index]
        guard verifyOwed.contains(client.name) else { return true }
        let verification = await client.verify()
        switch verification.result {
        case .verified, .diverged, .blocked:
            log.note("  \(client.name) verified after the restore: \(verification.result)")
            verifyOwed.remove(client.name)
            return true
        case .busy, .unsupported, .notCompared:
            return false
        }
    }

    /// The value `key` names on a device, as the ledger records writes (`writeUnique`); nil when it lacks the entity.
    static func fieldValue(_ key: FieldLedger.Key, in local: Entities) -> JSONValue? {
        let id = key.entity
        if key.field.hasPrefix("properties.") {
            guard let event = local.events[id] else { return nil }
            let property = event.properties[String(key.field.dropFirst("properties.".count))]
            return property.map { ["type": .string($0.type.rawValue), "value": $0.value] } ?? .null
        }
        switch key.field {
        case "notes": return local.events[id].map { $0.notes.map(JSONValue.string) ?? .null }
        case "color": return local.types[id].map { .string($0.color) }
        case "icon": return local.types[id].map { .string($0.icon) }
        case "name": return local.geofences[id].map { .string($0.name) }
        case "radius": return local.geofences[id].map { .number($0.radius) }
        case "label": return local.definitions[id].map { .string($0.label) }
        case "default_value": return local.definitions[id].map { $0.defaultValue ?? .null }
        default: return nil
        }
    }
}
