import Foundation
import Logging
import Models
import Protocols
import Synchronization

/// The complete server state, fetched before anything local changes (sync-engine §5.2 step 3). The events, nearly all
/// of it, are not held here: each page goes into the store's staging area as it arrives (`stageEvents`), so a
/// million-event account bootstraps in the memory of a page.
struct ServerSnapshot {
    var eventTypes: [APIEventType] = []
    var geofences: [APIGeofence] = []
    var propertyDefinitions: [APIPropertyDefinition] = []
    /// Types whose property definitions could not be fetched: their local definitions are kept.
    var unfetchedTypes: Set<String> = []
}

extension SyncEngine {
    /// sync-engine §5.2: read the latest cursor, fetch the snapshot (again while the cursor moves, at most three
    /// times), then replace local data in one unit of work, keeping entities with pending local writes.
    ///
    /// Against a server with keyset paging (`after`, R11) one listing is complete, so it is taken once.
    func bootstrap(_ counters: inout SyncCounts, givingBack: GiveBackScope? = nil) async throws {
        enter(.pulling)
        var latest = try await latestPosition()
        let keyset = try noteServerFeatures().has(ServerFeatures.after)
        if let givingBack {
            // R15, after the cursor read (the round's probe, S25, S81): what the device gave back is then in the
            // snapshot, and the entries it wrote come again in the next pull, changing nothing. A new history makes a
            // loss likely whatever asked for the bootstrap (a `sync --full`, or one retried after a failed attempt):
            // rows nobody acknowledged go back too, or the snapshot would take them away.
            let history = try newServerHistory()
            try await giveBack(
                since: history, readingBack: false, unacknowledged: givingBack == .everything || history != nil,
                &counters)
        }
        // R15: the history whose state the snapshot must be. One restored while the listing runs would mix the two,
        // and the snapshot would take away what the device holds and the restored server lost, before it goes back.
        let history = network.serverHistory?.id
        var snapshot = ServerSnapshot()
        for taken in 1...SyncConfiguration.maximumSnapshots {
            snapshot = try await fetchSnapshot(keyset: keyset)
            if keyset { break }
            let again = try await latestPosition()
            if again.cursor == latest.cursor || taken == SyncConfiguration.maximumSnapshots { break }
            latest = again
        }
        if let history, network.serverHistory?.id != history {
            try updateEngineState { $0.bootstrapRequested = true }
            throw RoundStop.error(
                "the server went back to a backup while this device read its state; the next sync gives back first")
        }
        try applySnapshot(snapshot, at: latest, &counters)
    }

    private func latestPosition() async throws -> FeedPosition {
        do {
            let position = try await network.getLatestPosition()
            thisRun.probing = false
            return position
        } catch {
            throw failure(of: error)
        }
    }

    /// Fetches types and geofences, stages every event (after emptying the staging area of an earlier attempt),
    /// then fetches each type's definitions. The account is bound to the user the objects name as they arrive.
    private func fetchSnapshot(keyset: Bool) async throws -> ServerSnapshot {
        var snapshot = ServerSnapshot()
        try unitOfWork { store in try store.clearStagedEvents() }
        do {
            snapshot.eventTypes = try await network.getEventTypes()
            snapshot.geofences = try await network.getGeofences(activeOnly: false)
        } catch {
            throw stop(for: error)
        }
        try bindAccount(snapshot.eventTypes.lazy.map(\.userId))
        notePulled(snapshot.eventTypes.count + snapshot.geofences.count)
        if keyset {
            try await stageEventsByKeyset()
        } else {
            let events: [APIEvent]
            do {
                // The pages arrive while this actor waits; each reports how many events came so far.
                let reported = Mutex(0)
                events = try await network.getAllEvents(batchSize: configuration.bootstrapEventsPageSize) {
                    [weak self] received in
                    let added = reported.withLock { seen in
                        defer { seen = max(seen, received) }
                        return max(0, received - seen)
                    }
                    guard added > 0 else { return }
                    Task { await self?.notePulled(added) }
                }
            } catch {
                throw stop(for: error)
            }
            try stage(events)
        }
        for type in snapshot.eventTypes {
            do {
                snapshot.propertyDefinitions += try await network.getPropertyDefinitions(eventTypeId: type.id)
            } catch {
                switch PushErrorClass.classify(error, operation: .create) {
                case .cancelled, .transport, .auth, .rateLimited: throw stop(for: error)
                default: snapshot.unfetchedTypes.insert(type.id.lowercased())
                }
            }
        }
        return snapshot
    }

    /// R11: every event, by keyset pages (api-v1 §5.3.1), each staged as it arrives: a delete during the listing
    /// cannot shift an unchanged event over a page boundary, so no repeat is needed. A repeated id (a row whose
    /// `timestamp` changed during the listing) keeps its first copy, like the offset listing.
    private func stageEventsByKeyset() async throws {
        var after: String?
        repeat {
            if Task.isCancelled { throw RoundStop.cancelled }
            let page: EventsPage
            do {
                page = try await network.getEventsPage(limit: configuration.bootstrapEventsPageSize, after: after)
            } catch {
                throw stop(for: error)
            }
            try stage(page.events)
            notePulled(page.events.count)
            if let next = page.nextAfter, next == after { throw RoundStop.error("the event listing did not advance") }
            after = page.nextAfter
        } while after != nil
    }

    /// Stages one listing's events as the rows the bootstrap will write, in a unit of work of their own; their
    /// users are bound to the account first.
    private func stage(_ events: [APIEvent]) throws {
        guard !events.isEmpty else { return }
        try bindAccount(events.lazy.map(\.userId))
        let rows = events.map { event -> Event in
            var row = Event.placeholder(id: event.id.lowercased(), at: now)
            row.replaceFields(with: event)
            return row
        }
        try unitOfWork { store in
            _ = try store.stageEvents(rows)
            // R15: every listed version is acknowledged; recorded with the page, kept even if the bootstrap fails.
            try store.recordAcknowledged(events.compactMap { APIEntity.event($0).acknowledgedVersion })
        }
    }

    /// sync-engine §5.2 step 5, in ONE unit of work: a failure leaves local data as it was.
    private func applySnapshot(
        _ snapshot: ServerSnapshot, at position: FeedPosition, _ counters: inout SyncCounts
    ) throws {
        try unitOfWork { store in
            var engineState = try store.loadEngineState()
            // Parents first: types, geofences, then definitions.
            let objects =
                snapshot.eventTypes.map(APIEntity.eventType) + snapshot.geofences.map(APIEntity.geofence)
                + snapshot.propertyDefinitions.map(APIEntity.propertyDefinition)
            try answerCancelledCreates(objects.map { ($0.entityType, $0.id, false) }, &engineState, store)
            let fences = try Fences(store: store, engineState: engineState)
            let protected = fences.written
            let keptDefinitions = try store.fetchAllPropertyDefinitions()
                .filter { snapshot.unfetchedTypes.contains($0.eventTypeId) }.map(\.id)
            // Parents the snapshot lacks go with the deletes below; R8 keeps the queue from naming them.
            let removedTypes = Set(try store.fetchAllEventTypes().map(\.id)).subtracting(protected)
                .subtracting(snapshot.eventTypes.map { $0.id.lowercased() })
            let removedFences = Set(try store.fetchAllGeofences().map(\.id)).subtracting(protected)
                .subtracting(snapshot.geofences.map { $0.id.lowercased() })
            for type in MutationEntityType.allCases {
                let keeping = type == .propertyDefinition ? protected.union(keptDefinitions) : protected
                _ = try store.deleteEntities(type, keeping: keeping)
            }
            for id in removedTypes.sorted() { try ParentRemoval.parentRemoved(.eventType, id: id, store, at: now) }
            for id in removedFences.sorted() { try ParentRemoval.parentRemoved(.geofence, id: id, store, at: now) }
            func writable(_ type: MutationEntityType, _ id: String) throws -> Bool {
                if try fences.skip(type, id, store, &counters) { return false }
                counters.pulled += 1
                return true
            }
            /// After a row is written: an update holder keeps its status and is owed (R3), another's debt is paid.
            func written(_ type: MutationEntityType, _ id: String) throws {
                if let rebase = fences.rebase(id) {
                    try Rebase.keepStatus(of: rebase, store)
                } else {
                    try fences.settle(type, id, store)
                }
            }
            try store.recordAcknowledged(fences.recordable(objects.compactMap(\.acknowledgedVersion)))
            for object in objects {
                let id = object.id.lowercased()
                guard try writable(object.entityType, id) else { continue }
                try store.replace(id: id, with: object, rebasing: fences.rebase(id))
                try written(object.entityType, id)
            }
            // The staged rows are the events as `replaceFields` makes them. Those no fence, rebase or debt concerns
            // are written as staged, in one statement; the others one by one, as every other entity.
            let concerned = fences.concerned
            // Events whose unsent create was cancelled stay out of the staged insert; the snapshot holding one is
            // answered with a delete (sync-engine §1.7).
            let cancelledEvents = engineState.cancelledCreateIds
            let staging = try store.insertStagedEvents(excluding: concerned.union(cancelledEvents))
            try answerCancelledCreates(
                cancelledEvents.sorted().filter { staging.excluded[$0] != nil }.map { (.event, $0, false) },
                &engineState, store)
            // The snapshot is the whole of the server's data: it holds no other copy of a cancelled create.
            engineState.cancelledCreateIds = []
            counters.pulled += staging.inserted
            for id in concerned.sorted() {
                guard let staged = staging.excluded[id], try writable(.event, id) else { continue }
                try store.upsertEvent(id: id) { row in
                    row = staged
                    Rebase.apply(fences.rebase(id), to: &row)
                }
                try written(.event, id)
            }
            try store.clearStagedEvents()
            engineState.position = position
            engineState.headCheckStart = nil  // the snapshot settled every version it held
            engineState.bootstrapRequested = false
            engineState.unfetchedDefinitionTypes = snapshot.unfetchedTypes
            engineState.geofencesRefreshedAt = now  // the snapshot held every geofence (S78's clock restarts)
            try store.saveEngineState(engineState)
            observedEngineState = engineState
        }
        refreshCounts()
    }
}

// MARK: Definitions a bootstrap could not fetch

extension SyncEngine {
    /// S84 keeps a type's local definitions when its fetch fails, yet the bootstrap's cursor moves past every
    /// change before it: without another fetch, a device that bootstrapped during a fault would lack that type's
    /// definitions until each is edited again. After an incremental pull, each such type's definitions are fetched
    /// again and replace the local ones (fenced rows excepted), as the bootstrap would have. Errors are logged and
    /// leave the type for the next round; they do not change the round's outcome, like the geofence refresh.
    func refetchUnfetchedDefinitions(_ counters: inout SyncCounts) async {
        let types: Set<String>
        do {
            types = try readEngineState().unfetchedDefinitionTypes
        } catch {
            return
        }
        for type in types.sorted() {
            if Task.isCancelled { return }
            do {
                let definitions: [APIPropertyDefinition]
                do {
                    definitions = try await network.getPropertyDefinitions(eventTypeId: type)
                } catch let NetworkError.http(failure) where failure.status == 404 {
                    definitions = []  // the type is gone; the feed deletes it and its definitions
                }
                try replaceDefinitions(of: type, with: definitions, &counters)
            } catch {
                if case .rateLimited(let retryAfter) = PushErrorClass.classify(error, operation: .create) {
                    startQuietPeriod(retryAfter)
                    return
                }
                logger.warning(
                    "property definitions of a type could not be fetched again",
                    metadata: ["event_type_id": "\(type)", "error": "\(error)"])
            }
        }
    }

    private func replaceDefinitions(
        of type: String, with definitions: [APIPropertyDefinition], _ counters: inout SyncCounts
    ) throws {
        try unitOfWork { store in
            var engineState = try store.loadEngineState()
            let fences = try Fences(store: store, engineState: engineState)
            let fetched = Set(definitions.map { $0.id.lowercased() })
            for local in try store.fetchAllPropertyDefinitions()
            where local.eventTypeId == type && !fetched.contains(local.id) && !fences.written.contains(local.id) {
                try store.deletePropertyDefinition(id: local.id)
            }
            for definition in definitions {
                let id = definition.id.lowercased()
                if try fences.skip(.propertyDefinition, id, store, &counters) { continue }
                let rebase = fences.rebase(id)
                try store.replace(id: id, with: .propertyDefinition(definition), rebasing: rebase)
                if let rebase {
                    try Rebase.keepStatus(of: rebase, store)
                } else {
                    try fences.settle(.propertyDefinition, id, store)
                }
                counters.pulled += 1
            }
            engineState.unfetchedDefinitionTypes.remove(type)
            try store.saveEngineState(engineState)
            observedEngineState = engineState
        }
    }
}
