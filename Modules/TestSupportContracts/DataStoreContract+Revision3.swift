import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Revision 3: owed read-backs (DS12–DS14), queue rewrites (DS15), unanswered batches (sync-engine §4.7 step 2)

extension DataStoreContract {
    static let revision3Checks: [Check] = [
        check("DS12 DS13 DS14 owed entities: oldest first; marking again gives a new token; settling checks it") {
            subject in
            try subject.saved { store throws in
                try store.markOwed(.event, id: Build.id(1), reason: .fenced)
                try store.markOwed(.eventType, id: Build.id(2), reason: .replayed)
            }
            let owed = try subject.read { try $0.owedEntities() }
            #expect(owed.map(\.id) == [Build.id(1), Build.id(2)])
            #expect(owed.map(\.entityType) == [.event, .eventType])
            try subject.saved { try $0.markOwed(.event, id: Build.id(1), reason: .discarded) }
            let again = try subject.read { try $0.owedEntities() }
            #expect(again.map(\.id) == [Build.id(2), Build.id(1)], "marked again: the newest debt")
            let renewed = try #require(again.last)
            #expect(renewed.token != owed[0].token)
            #expect(try subject.saved { try $0.settleOwed(.event, id: Build.id(1), token: owed[0].token) } == false)
            #expect(try subject.saved { try $0.settleOwed(.event, id: Build.id(1), token: renewed.token) })
            #expect(try subject.saved { try $0.settleOwed(.eventType, id: Build.id(2), token: nil) })
            #expect(try subject.read { try $0.owedEntities() }.isEmpty)
            #expect(try subject.saved { try $0.settleOwed(.event, id: Build.id(9), token: nil) } == false)
        },
        check("DS12 a debt that waits for nothing is not turned into one that waits for a parent") { subject in
            try subject.saved { try $0.markOwed(.event, id: Build.id(1), reason: .discarded) }
            try subject.saved { try $0.markOwed(.event, id: Build.id(1), reason: .cascaded, after: Build.id(9)) }
            #expect(try subject.read { try $0.owedEntities() }.map(\.after) == [nil])
            try subject.saved { try $0.markOwed(.event, id: Build.id(2), reason: .cascaded, after: Build.id(9)) }
            try subject.saved { try $0.markOwed(.event, id: Build.id(2), reason: .cascaded, after: Build.id(8)) }
            #expect(try subject.read { try $0.owedEntities() }.last?.after == Build.id(8))
            try subject.saved { try $0.markOwed(.event, id: Build.id(2), reason: .replayed) }
            #expect(try subject.read { try $0.owedEntities() }.last?.after == nil)
        },
        check("DS12 DS13 each debt says why; a version owed back stays so when marked owed for another reason") {
            subject in
            try subject.saved { try $0.markOwed(.eventType, id: Build.id(1), reason: .giveBack) }
            try subject.saved { try $0.markOwed(.eventType, id: Build.id(2), reason: .fenced) }
            let first = try subject.read { try $0.owedEntities() }
            #expect(first.map(\.reason) == [.giveBack, .fenced])
            try subject.saved { try $0.markOwed(.eventType, id: Build.id(1), reason: .verify) }
            let again = try subject.read { try $0.owedEntities() }
            #expect(again.map(\.id) == [Build.id(2), Build.id(1)], "marked again: a new token")
            #expect(again.last?.reason == .giveBack)
            try subject.saved { try $0.settleOwed(.eventType, id: Build.id(1), token: nil) }
            try subject.saved { try $0.markOwed(.eventType, id: Build.id(1), reason: .verify) }
            #expect(try subject.read { try $0.owedEntities() }.last?.reason == .verify, "once paid, another debt")
        },
        check(
            "DS20 DS21 acknowledged versions: the latest per entity wins, a delete included, with its creation time; filtered by id and by time; rolled back unsaved"
        ) {
            subject in
            func at(_ seconds: Int64) -> Date { Date(millisecondsSince1970: 1_800_000_000_000 + seconds * 1000) }
            try subject.saved { store throws in
                try store.recordAcknowledged([
                    AcknowledgedVersion(
                        entityType: .event, id: Build.id(1), acknowledgedAt: at(10), deleted: false, createdAt: at(2)),
                    AcknowledgedVersion(
                        entityType: .eventType, id: Build.id(2), acknowledgedAt: at(5), deleted: false, createdAt: at(1)
                    ),
                ])
                // An older acknowledgment arriving late (a stale page) changes nothing; a later delete replaces.
                try store.recordAcknowledged([
                    AcknowledgedVersion(entityType: .event, id: Build.id(1), acknowledgedAt: at(3), deleted: true),
                    AcknowledgedVersion(entityType: .eventType, id: Build.id(2), acknowledgedAt: at(20), deleted: true),
                ])
            }
            let all = try subject.read { try $0.acknowledgedVersions(ids: nil) }
            #expect(
                all == [
                    AcknowledgedVersion(
                        entityType: .event, id: Build.id(1), acknowledgedAt: at(10), deleted: false, createdAt: at(2)),
                    AcknowledgedVersion(entityType: .eventType, id: Build.id(2), acknowledgedAt: at(20), deleted: true),
                ])
            #expect(try subject.read { try $0.acknowledgedVersions(ids: [Build.id(2)]) }.map(\.id) == [Build.id(2)])
            // Strictly after the time, with or without ids.
            #expect(
                try subject.read { try $0.acknowledgedVersions(ids: nil, acknowledgedAfter: at(10)) }.map(\.id) == [
                    Build.id(2)
                ])
            #expect(
                try subject.read { try $0.acknowledgedVersions(ids: [Build.id(1)], acknowledgedAfter: at(9)) }.map(
                    \.id) == [Build.id(1)])
            #expect(
                try subject.read { try $0.acknowledgedVersions(ids: [Build.id(1)], acknowledgedAfter: at(10)) }
                    .isEmpty)
            do {
                let store = subject.factory.makeDataStore()
                try store.recordAcknowledged([
                    AcknowledgedVersion(entityType: .geofence, id: Build.id(3), acknowledgedAt: at(1), deleted: false)
                ])
            }  // released unsaved
            #expect(try subject.read { try $0.acknowledgedVersions(ids: [Build.id(3)]) }.isEmpty)
        },
        check("DS12 an owed mark rolls back with its unit of work") { subject in
            do {
                let store = subject.factory.makeDataStore()
                try store.markOwed(.geofence, id: Build.id(1), reason: .conflict)
            }  // released unsaved
            #expect(try subject.read { try $0.owedEntities() }.isEmpty)
        },
        check("DS16 DS17 DS18 staged events: every field as staged; a repeat keeps its first copy; clear empties") {
            subject in
            let first = (1...3).map { index in
                Build.event(
                    id: Build.id(10 + index), notes: "first \(index)",
                    properties: ["strength": PropertyValue(type: .number, value: 2.5)], syncStatus: .synced
                ) { $0.details = Build.everyDetail }
            }
            #expect(try subject.saved { try $0.stageEvents(Array(first.prefix(2))) } == 2)
            var moved = first[1]
            moved.notes = "moved during the listing"
            #expect(try subject.saved { try $0.stageEvents([moved, first[2]]) } == 1)
            // Every id excluded: nothing is written, and each staged copy comes back.
            let staged = try subject.read { try $0.insertStagedEvents(excluding: Set(first.map(\.id))) }
            #expect(staged.inserted == 0)
            #expect(first.map { staged.excluded[$0.id] } == first, "every field as staged, the first copy of a repeat")
            #expect(try subject.read { try $0.fetchAllEvents() }.isEmpty, "staging touches no entity table")
            try subject.saved { try $0.clearStagedEvents() }
            #expect(try subject.read { try $0.insertStagedEvents(excluding: [first[0].id]) }.excluded.isEmpty)
        },
        check("DS17 DS18 staging rolls back with its unit of work; staged rows but the excluded go to the table") {
            subject in
            do {
                let store = subject.factory.makeDataStore()
                try store.stageEvents([Build.event(id: Build.id(20))])
            }  // released unsaved
            #expect(try subject.read { try $0.insertStagedEvents(excluding: [Build.id(20)]) }.excluded.isEmpty)
            var local = Build.event(id: Build.id(21), notes: "local copy", syncStatus: .pending)
            try subject.saved { try $0.insertEvent(local) }
            let server = (1...5).map { Build.event(id: Build.id(20 + $0), notes: "server \($0)", syncStatus: .synced) }
            try subject.saved { try $0.stageEvents(server) }
            let written = try subject.saved { store in
                let staging = try store.insertStagedEvents(excluding: [Build.id(23), Build.id(99)])
                try store.clearStagedEvents()
                return staging
            }
            #expect(written.inserted == 4)
            #expect(written.excluded == [Build.id(23): server[2]], "the staged copy of an excluded id, none of another")
            let events = try subject.read { try $0.fetchAllEvents() }.sorted { $0.id < $1.id }
            local = server[0]
            #expect(events == [local, server[1], server[3], server[4]], "a row of the same id is replaced whole")
        },
        check("DS15 rewriteMutation writes payload, key, state, attempts, error, revision and updated_at") { subject in
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x"))
            var row = try #require(try subject.queue().first)
            row.payload = try updatePayload(notes: "y")
            row.clientRequestId = Build.id(77)
            row.state = .failed
            row.attempts = 3
            row.lastError = "parent deleted"
            row.revision += 1
            row.updatedAt = Build.instant.addingTimeInterval(5)
            row.sentKey = Build.id(76)
            row.sentPayload = try updatePayload(notes: "x")
            try subject.saved { try $0.rewriteMutation(row) }
            #expect(try subject.queue() == [row], "every field, the unsettled send included")
            var missing = row
            missing.id = Build.id(404)
            try subject.saved { try $0.rewriteMutation(missing) }
            #expect(try subject.queue() == [row], "a missing row is a no-op")
        },
        check("DS2 a claim keeps an update's send until it is settled; a merge keeps it; creates keep none") {
            subject in
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x"))
            try subject.enqueue(.create, id: Build.id(2), payload: try updatePayload(notes: "c"))
            let queued = try subject.queue()
            let claimed = try subject.saved { try $0.claimMutations(ids: queued.map(\.id), at: Build.instant) }
            let update = try #require(claimed.first { $0.operation == .update })
            #expect(update.sentKey == update.clientRequestId && update.sentPayload == update.payload)
            #expect(claimed.first { $0.operation == .create }?.sentKey == nil, "only updates keep their send")
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "y"))
            let merged = try #require(try subject.queue().first { $0.operation == .update })
            #expect(merged.clientRequestId != update.clientRequestId, "R2: the merged body has a key of its own")
            #expect(merged.sentKey == update.clientRequestId && merged.sentPayload == update.payload)
            let again = try subject.saved { try $0.claimMutations(ids: [merged.id], at: Build.instant) }
            #expect(again.first?.sentKey == update.clientRequestId, "a claim never replaces an unsettled send")
        },
        check("unanswered batches: kept in order with their members, replaced by key, forgotten by key") { subject in
            func batch(_ key: String, _ members: Int, at offset: Double) -> UnansweredBatch {
                UnansweredBatch(
                    key: key,
                    members: (0..<members).map { index in
                        UnansweredBatch.Member(
                            mutationId: Build.id(100 + index), revision: index + 1, entityId: Build.id(200 + index),
                            payload: Data(#"{"n":\#(index)}"#.utf8))
                    }, sentAt: Build.instant.addingTimeInterval(offset))
            }
            try subject.saved { store throws in
                try store.recordUnansweredBatch(batch("k1", 2, at: 0))
                try store.recordUnansweredBatch(batch("k2", 1, at: 1))
            }
            #expect(try subject.read { try $0.unansweredBatches() } == [batch("k1", 2, at: 0), batch("k2", 1, at: 1)])
            try subject.saved { try $0.removeUnansweredBatch(key: "k1") }
            try subject.saved { try $0.removeUnansweredBatch(key: "missing") }
            #expect(try subject.read { try $0.unansweredBatches() }.map(\.key) == ["k2"])
        },
    ]
}
