import Foundation
import Logging
import Models
import Protocols

/// R15: what a device gives back to a server that went back to a backup.
///
/// The device compares digests with the server (api-v1 §14) to find what differs, then hands back, per differing
/// entity, what only it can know: an entity it holds that the server lacks, a version the server acknowledged later
/// than the one the server holds now, a delete the server acknowledged that the server no longer has. The server
/// takes each only when it is newer than what it holds (api-v1 §15.1); everything else that differs is read back, so
/// the device ends with the server's state, which now holds what the device gave back.
extension SyncEngine {
    /// Items a give-back request carries at most (api-v1 §15.1).
    static let giveBackBatch = 500

    /// R15: a server history other than the one the device's acknowledgments belong to, or nil. The first history
    /// a device meets is simply remembered.
    func newServerHistory() throws -> ServerHistory? {
        guard let seen = network.serverHistory else { return nil }
        let stored = try readEngineState().serverHistoryId
        guard let stored else {
            try updateEngineState { $0.serverHistoryId = seen.id }
            return nil
        }
        return stored == seen.id ? nil : seen
    }

    /// What a bootstrap gives back first (R15): acknowledged versions only (a `sync --full`, a stream's 410), or also
    /// rows nobody acknowledged that the server lacks (a pull's 410).
    enum GiveBackScope {
        case acknowledged
        case everything
    }

    /// An entity present on one side only or with another hash; `serverHolds` when the server listed it.
    typealias Difference = (type: MutationEntityType, id: String, serverHolds: Bool)

    /// Gives back what the server lacks of what this device holds (R15), then remembers the server's history.
    /// With `readingBack`, every other difference is made owed, for this round's read-backs; a bootstrap that
    /// follows needs none. `differing` is what a verification found already. With `unacknowledged`, a row nobody
    /// acknowledged that the server lacks goes back too: only where a loss is likely (a new history, a 410, a
    /// bootstrap of a device that synced before), not on a verify's difference, where it is a stray row.
    /// Nothing happens against a server without a digest or a history (no give-back either).
    func giveBack(
        since history: ServerHistory?, readingBack: Bool, differing found: [Difference]? = nil,
        unacknowledged: Bool, _ counters: inout SyncCounts
    ) async throws {
        guard try readEngineState().serverFeatures.has(ServerFeatures.digest) else { return }
        let differing: [Difference]
        if let found { differing = found } else { differing = try await differencesFromServer() }
        guard network.serverHistory != nil else { return }
        let (items, rest) = try giveBackItems(
            for: differing, backupTakenAt: history?.backupTakenAt, unacknowledged: unacknowledged)
        var owed = rest
        var index = 0
        while index < items.count {
            let chunk = Array(items[index..<min(index + Self.giveBackBatch, items.count)])
            index += chunk.count
            let answer: GiveBackResponse
            do {
                answer = try await network.giveBack(chunk)
            } catch NetworkError.http(let failure) where failure.status == 404 && failure.problemType == "not_found" {
                return  // a server from before the give-back: nothing to do but what it always did
            } catch {
                throw stop(for: error)
            }
            counters.givenBack += answer.count(.applied)
            // Whatever the server did not take is the server's to tell: read it back.
            for result in answer.results where result.outcome != .applied {
                owed.append((result.entityType, result.id.lowercased()))
            }
        }
        try unitOfWork { store in
            if readingBack {
                for (type, id) in owed { try store.markOwed(type, id: id, reason: .verify) }
            }
            var engineState = try store.loadEngineState()
            if let seen = network.serverHistory { engineState.serverHistoryId = seen.id }
            try store.saveEngineState(engineState)
            observedEngineState = engineState
        }
        if counters.givenBack > 0 {
            logger.notice("gave back \(counters.givenBack) changes the server had lost")
        }
    }

    /// Every entity present on one side only or with another hash, bucket by bucket (the cursors need not meet:
    /// the server's newer-only rule makes a give-back safe at any moment).
    private func differencesFromServer() async throws -> [Difference] {
        async let answer = network.getDigest()
        let local = try unitOfWork { store in try LocalDigest(store, hashing: hashing) }
        let server: SyncDigest
        do {
            server = try await answer
        } catch {
            throw stop(for: error)
        }
        let mine = local.builder.digest(cursor: local.cursor)
        var differing: [Difference] = []
        for bucket in EntityDigest.bucketNames where mine.buckets[bucket] != server.buckets[bucket] {
            let listed: SyncDigestBucket
            do {
                listed = try await network.getDigestBucket(bucket)
            } catch {
                throw stop(for: error)
            }
            var theirs: [String: (MutationEntityType, String)] = [:]
            for item in listed.items {
                guard let type = MutationEntityType(rawValue: item.entityType) else { continue }
                theirs[item.id.lowercased()] = (type, item.hash)
            }
            let held = local.items[EntityDigest.bucketNumber(of: bucket)]
            for (id, item) in held where theirs[id].flatMap({ DigestSum(hex: $0.1) }) != item.sum {
                differing.append((item.type, id, theirs[id] != nil))
            }
            for (id, item) in theirs where held[id] == nil { differing.append((item.0, id, true)) }
        }
        return differing
    }

    /// What to give back of the differing entities, and the rest (to read back). A row with a queued create is the
    /// queue's to send; a version the server holds is given back only with the time it was acknowledged, which the
    /// server compares with its own.
    private func giveBackItems(
        for differing: [Difference], backupTakenAt: Date?, unacknowledged: Bool
    ) throws -> (items: [GiveBackItem], rest: [(MutationEntityType, String)]) {
        try unitOfWork { store in
            let queue = try store.fetchPendingMutations()
            let created = Set(queue.filter { $0.operation == .create }.map(\.entityId))
            // A row with any change queued, failed or owed is the queue's or the read-back's, never evidence.
            let unsettled = Set(queue.map(\.entityId)).union(try store.owedEntities().map(\.id))
            let acknowledged = Dictionary(
                try store.acknowledgedVersions(ids: Set(differing.map(\.id))).map { ($0.id, $0) },
                uniquingKeysWith: { _, last in last })
            var items: [GiveBackItem] = []
            var rest: [(MutationEntityType, String)] = []
            for entity in differing {
                let version = acknowledged[entity.id]
                if let data = try Self.restObject(entity.type, id: entity.id, store), !created.contains(entity.id) {
                    // Held here. Without an acknowledgment, only an entity the server lacks goes back, dated no
                    // later than the backup: a delete the server remembers still wins.
                    if let version, !version.deleted {
                        items.append(
                            GiveBackItem(
                                entityType: entity.type, id: entity.id, acknowledgedAt: version.acknowledgedAt,
                                deleted: false, data: data))
                    } else if unacknowledged, !entity.serverHolds, !unsettled.contains(entity.id) {
                        items.append(
                            GiveBackItem(
                                entityType: entity.type, id: entity.id,
                                acknowledgedAt: backupTakenAt ?? Date(millisecondsSince1970: 0), deleted: false,
                                data: data))
                    }
                } else if let version, version.deleted, entity.serverHolds {
                    items.append(
                        GiveBackItem(
                            entityType: entity.type, id: entity.id, acknowledgedAt: version.acknowledgedAt,
                            deleted: true, data: nil))
                }
                rest.append((entity.type, entity.id))
            }
            // Parents before children across requests too (the server orders within one): types, definitions,
            // geofences, events; deletes last, children first.
            return (items.sorted { $0.applicationRank < $1.applicationRank }, rest)
        }
    }

    /// The local row as the REST object the server's create reads (api-v1 §4), with its id and creation time.
    private static func restObject(
        _ type: MutationEntityType, id: String, _ store: any DataStoreProtocol
    ) throws -> JSONValue? {
        var members: [String: JSONValue]
        switch type {
        case .eventType:
            guard let row = try store.findEventType(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreateEventTypeRequest(row)).objectValue ?? [:]
            members["created_at"] = .string(RFC3339.string(from: row.createdAt))
        case .event:
            guard let row = try store.findEvent(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreateEventRequest(row)).objectValue ?? [:]
        case .geofence:
            guard let row = try store.findGeofence(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreateGeofenceRequest(row)).objectValue ?? [:]
            members["created_at"] = .string(RFC3339.string(from: row.createdAt))
        case .propertyDefinition:
            guard let row = try store.findPropertyDefinition(id: id) else { return nil }
            members = try JSONValueEncoder.encode(CreatePropertyDefinitionRequest(row)).objectValue ?? [:]
            members["event_type_id"] = .string(row.eventTypeId)
            members["created_at"] = .string(RFC3339.string(from: row.createdAt))
        }
        members["id"] = .string(id)
        return .object(members)
    }
}
