import Foundation
import Models
import Protocols
import TestSupport
import Testing

// MARK: - Engine support: statuses, bulk replace, engine state, history, queries

extension DataStoreContract {
    static let engineChecks: [Check] = [
        check("DS6 setSyncStatus changes an existing row and ignores a missing one") { subject in
            try subject.saved { store throws in
                try store.upsertGeofence(id: Build.id(1)) { _ in }
                try store.setSyncStatus(.failed, entityType: .geofence, id: Build.id(1))
                try store.setSyncStatus(.failed, entityType: .geofence, id: Build.id(2))
            }
            try subject.read { store throws in
                #expect(try store.findGeofence(id: Build.id(1))?.syncStatus == .failed)
                #expect(try store.findGeofence(id: Build.id(2)) == nil)
            }
        },
        check("DS7 deleteEntities keeps the given ids, counts the rest and does not cascade") { subject in
            try subject.saved { store throws in
                for number in 1...5 { try store.upsertEventType(id: Build.id(number)) { _ in } }
                try store.upsertEvent(id: Build.id(10)) { $0.eventTypeId = Build.id(5) }
            }
            let deleted = try subject.saved { try $0.deleteEntities(.eventType, keeping: [Build.id(2), Build.id(4)]) }
            #expect(deleted == 3)
            try subject.read { store throws in
                #expect(Set(try store.fetchAllEventTypes().map(\.id)) == [Build.id(2), Build.id(4)])
                #expect(try store.findEvent(id: Build.id(10)) != nil)
            }
            #expect(try subject.saved { try $0.deleteEntities(.event, keeping: []) } == 1)
        },
        check("DS8 DS9 S17 engine state reads defaults, then round-trips every field") { subject in
            #expect(try subject.read { try $0.loadEngineState() } == EngineState())
            let state = EngineState(
                cursor: 4_000_000_000_123, cursorCreatedAt: Build.instant.addingTimeInterval(-5),
                bootstrapRequested: true, pendingDeleteIds: [Build.id(1), Build.id(2)],
                breakerConsecutive429: 2, breakerBackoffUntil: Build.instant.addingTimeInterval(30),
                breakerMultiplier: 4, breakerRetryAfterHint: 12.5, quietUntil: Build.instant.addingTimeInterval(60),
                lastSuccessAt: Build.instant, serverRoot: "http://127.0.0.1:8080", accountUserId: Build.id(42),
                unfetchedDefinitionTypes: [Build.id(3)], serverFeatures: ServerFeatures(["after", "stream"]),
                serverHistoryId: "history-1", cancelledCreateIds: [Build.id(5), Build.id(6)],
                headCheckStart: FeedPosition(cursor: 7, createdAt: Build.instant))
            try subject.saved { try $0.saveEngineState(state) }
            #expect(try subject.read { try $0.loadEngineState() } == state)
            var cleared = state
            cleared.breakerBackoffUntil = nil
            cleared.quietUntil = nil
            cleared.breakerRetryAfterHint = nil
            cleared.pendingDeleteIds = []
            cleared.unfetchedDefinitionTypes = []
            cleared.cursorCreatedAt = nil
            cleared.cancelledCreateIds = []
            cleared.headCheckStart = nil
            try subject.saved { try $0.saveEngineState(cleared) }
            // S17: Cursor, bootstrap_requested, pending_delete_ids, breaker fields, quiet_until, last_success_at…
            #expect(try subject.read { try $0.loadEngineState() } == cleared)
        },
        check("DS10 DS11 S19 history reads newest first and keeps only the newest rows") { subject in
            func entry(_ number: Int) -> SyncHistoryEntry {
                let start = Build.instant.addingTimeInterval(Double(number))
                var entry = SyncHistoryEntry(
                    id: Build.id(number, at: start), startedAt: start, finishedAt: start.addingTimeInterval(0.25),
                    durationMs: 250, kind: number == 1 ? .bootstrap : .incremental,
                    status: number.isMultiple(of: 2) ? .partial : .success, outcome: "synced",
                    message: number == 3 ? "note" : nil)
                // A different value in each counter, so a swapped column shows.
                for (offset, field) in SyncCounts.fields.enumerated() {
                    entry.counts[keyPath: field.path] = number + offset
                }
                return entry
            }
            for number in 1...7 { try subject.saved { try $0.appendSyncHistory(entry(number), keepLast: 5) } }
            let history = try subject.read { try $0.fetchSyncHistory(limit: 100) }
            #expect(history.map(\.pushed) == [7, 6, 5, 4, 3])
            #expect(history.last == entry(3))
            // S19: Every round that passed the health check adds exactly one history row; rounds stopped before it…
            #expect(try subject.read { try $0.fetchSyncHistory(limit: 2) }.map(\.pushed) == [7, 6])
        },
        check("Q1 event queries filter by type, time, status and geofence, newest first, limited") { subject in
            try subject.saved { store throws in
                for number in 1...6 {
                    try store.upsertEvent(id: Build.id(number)) {
                        $0.eventTypeId = number <= 3 ? Build.id(100) : Build.id(101)
                        $0.timestamp = Build.instant.addingTimeInterval(Double(number) * 60)
                        if number.isMultiple(of: 2) { $0.geofenceId = Build.id(200) }
                    }
                }
                try store.setSyncStatus(.pending, entityType: .event, id: Build.id(2))
            }
            func ids(_ query: EventQuery) throws -> [String] {
                try subject.read { try $0.fetchEvents(matching: query) }.map(\.id)
            }
            #expect(try ids(EventQuery()) == (1...6).reversed().map { Build.id($0) })
            #expect(try ids(EventQuery(eventTypeId: Build.id(100))) == [Build.id(3), Build.id(2), Build.id(1)])
            let since = Build.instant.addingTimeInterval(120)
            let until = Build.instant.addingTimeInterval(300)
            #expect(
                try ids(EventQuery(since: since, until: until)) == [Build.id(5), Build.id(4), Build.id(3), Build.id(2)])
            #expect(try ids(EventQuery(syncStatus: .pending)) == [Build.id(2)])
            #expect(try ids(EventQuery(limit: 2)) == [Build.id(6), Build.id(5)])
            #expect(try ids(EventQuery(geofenceId: Build.id(200))) == [Build.id(6), Build.id(4), Build.id(2)])
        },
        check("Q2 Q3 Q4 mutation counts by state, one entity's mutations in queue order, live revisions") { subject in
            try subject.enqueue(.create, id: Build.id(1), payload: try createPayload)
            try subject.claim(try subject.queue().map(\.id))
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "x"))
            try subject.enqueue(.delete, .geofence, id: Build.id(2))
            let geofenceDelete = try #require(try subject.queue().last)
            try subject.saved { store throws in
                _ = try store.recordMutationFailure(
                    id: geofenceDelete.id, revision: 1, message: "x", at: subject.now, maxAttempts: 1,
                    deadLetterNow: false)
            }
            #expect(try subject.read { try $0.countMutations() } == MutationCounts(pending: 2, failed: 1))
            #expect(
                try subject.read { try $0.fetchMutations(entityId: Build.id(1)) }.map(\.operation) == [
                    .create, .update,
                ])
            #expect(try subject.read { try $0.fetchMutations(entityId: Build.id(3)) }.isEmpty)
            try subject.enqueue(.update, id: Build.id(1), payload: try updatePayload(notes: "y"))  // folds: revision 2
            let live = try subject.queue().filter(\.isLive)
            #expect(
                try subject.read { try $0.liveMutationRevisions() }
                    == Dictionary(uniqueKeysWithValues: live.map { ($0.id, $0.revision) }),
                "Q4 the live rows only, each at its revision")
            #expect(live.count == 2 && live.contains { $0.revision > 1 }, "the check sees a folded revision")
        },
    ]
}
