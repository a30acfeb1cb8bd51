import Foundation
import Models
import Persistence
import Protocols
import Sync
import TrendyServer

extension ConvergenceRun {
    /// Convergence seed 22854's sequence, made on purpose (sync-engine R15 *Re-sent creates*, api-v1 §7): the server's
    /// file copied by hand while it is stopped; a device's event create taken by the server with its answer lost
    /// (every answer dropped for that round); another device pulls the event and deletes it, or (half the time) edits
    /// its notes; the copy put back by hand. The first device's position is one the copy holds, so its round sends
    /// the create again as a new write to a copy that never saw it; the other device gives its delete or its edit
    /// back later, and it must stand (the ledgers check it; the edit's case is still open, docs/reliability.md).
    /// Returns the log line; the counts say how often the whole sequence was made.
    func lostCreateChangedThenCopy(_ index: Int) async throws -> String {
        let client = clients[index]
        let others = clients.filter { $0.name != client.name && !$0.isLive && $0.offlineFor == 0 }
        guard servers.count == 1, !client.isLive, client.offlineFor == 0, let other = random.pick(others),
            let typeId = random.pick(try client.entities().types.keys.sorted())
        else { return "skipped (several instances, live or offline devices, or no type)" }
        try acknowledgeFieldWrites()
        let directory = URL(fileURLWithPath: servers[0].database).deletingLastPathComponent()
        let path = directory.appendingPathComponent("copy.sqlite").path
        var dropping = FaultConfiguration.none
        dropping.probabilityDrop = 1
        servers[0] = try await servers[0].copiedWhileStopped(to: path, faults: dropping, seed: nextSeed())
        serverRestarts += 1
        let restorePoint = Int64(try SQLiteFile(path).count("SELECT COALESCE(MAX(id), 0) FROM changes"))
        backup = ServerBackup(
            path: path, marked: false, restorePoint: restorePoint, acknowledged: fields.acknowledged, takenAt: Date())

        let seconds = Double(Int.random(in: 0..<2_000_000, using: &random))
        let event = try await client.events.createEvent(
            eventTypeId: typeId, timestamp: Date(timeIntervalSince1970: 1_760_000_000 + seconds)
        ) { _ in }
        ledger.created[event.id] = .init(client: client.name, kind: .event, parentType: typeId)
        let lost = await client.sync()
        servers[0] = try await servers[0].restart(faults: settings.faults, seed: nextSeed())
        serverRestarts += 1
        let sent = try client.stores.makeDataStore().fetchMutations(entityId: event.id).contains(where: \.isSent)
        var line = "\(client.name) created \(event.id), its round \(lost.outcome.name) with every answer dropped"
        guard sent else { return line + "; the create was not sent (an earlier request stopped the round)" }
        _ = await other.sync()
        guard try other.entities().events[event.id] != nil else { return line + "; \(other.name) did not get it" }
        let deletes = random.chance(0.5)
        if deletes {
            try await other.events.deleteEvent(id: event.id)
            ledger.deleted[event.id] = other.name
        } else {
            _ = try await writeUnique("notes", of: .event, id: event.id, on: other)
        }
        let changed = await other.sync()
        line += "; \(other.name) \(deletes ? "deleted" : "edited the notes of") it (\(changed.outcome.name))"
        guard let restored = try await restoreServer() else { return line }
        moves["lostCreateChangedThenCopy, the whole sequence\(deletes ? "" : " with an edit")", default: 0] += 1
        return line + "; " + restored
    }

    /// A seed for a server start, drawn from the run's generator.
    private func nextSeed() -> UInt64 {
        settings.seed &+ UInt64(Int.random(in: 0..<1_000_000, using: &random))
    }
}
