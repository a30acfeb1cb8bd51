import Foundation
import Models
import Protocols
import Synchronization

extension InMemoryTrendyServer {
    /// `GET /events?limit&offset`: `limit` 1–1000 used as given, anything else 100; `event_type` embedded.
    public func listEvents(user: String, limit: Int, offset: Int) throws(NetworkError) -> [APIEvent] {
        guard offset >= 0 else { throw Problems.badRequest("offset must not be negative") }
        let pageSize = (1...1000).contains(limit) ? limit : 100
        return state.withLock { state in
            Self.sortedEvents(state.events.values.filter { $0.userId == user }).dropFirst(offset).prefix(pageSize)
                .map { event in
                    var event = event
                    event.eventType = state.eventTypes[event.eventTypeId]
                    return event
                }
        }
    }

    /// `POST /events` (api-v1 §5.3.4), replayed for a key already answered.
    public func createEvent(user: String, _ request: CreateEventRequest, key: String?) throws(NetworkError) -> APIEvent
    {
        try idempotent(user: user, method: "POST", path: "/api/v1/events", key: key, body: request) {
            (state: inout State) throws(NetworkError) -> APIEvent in
            try createOne(&state, user: user, request)
        }
    }

    /// Items are processed in order, each like a single create and seeing earlier items; failures never affect the
    /// other items (api-v1 §5.3.5).
    /// `queuedAt`: when a re-send's creates were queued (`Trendy-Queued-For`, api-v1 §7).
    public func createEventsBatch(
        user: String, _ events: [CreateEventRequest], key: String?, queuedAt: Date? = nil
    ) throws(NetworkError)
        -> BatchCreateEventsResponse
    {
        guard (1...500).contains(events.count) else { throw Problems.validation("events must hold 1 to 500 items") }
        let first = state.withLock { $0.nextChangeId }
        let response = try idempotent(
            user: user, method: "POST", path: "/api/v1/events/batch", key: key,
            body: BatchCreateEventsRequest(events: events)
        ) { (state: inout State) throws(NetworkError) -> BatchCreateEventsResponse in
            var created: [APIEvent] = []
            var errors: [BatchEventError] = []
            for (index, item) in events.enumerated() {
                do throws(NetworkError) {
                    created.append(try createOne(&state, user: user, item))
                } catch {
                    let failure = error.httpFailure
                    errors.append(
                        BatchEventError(
                            index: index, message: failure?.message ?? "\(error)", type: failure?.problemType,
                            id: item.id?.lowercased(), existingId: failure?.existingId))
                }
            }
            return BatchCreateEventsResponse(
                created: created, errors: errors, total: events.count, success: created.count, failed: errors.count)
        }
        guard let queuedAt,
            let dated = dateResentCreates(
                user: user, ids: response.created.map(\.id), from: first, queuedAt: queuedAt)
        else { return response }
        // The answer with the dated `created_at` of each event the request created (a HealthKit match keeps its own).
        var redated = response
        for index in redated.created.indices where dated.ids.contains(redated.created[index].id.lowercased()) {
            redated.created[index].createdAt = dated.time
        }
        endRemembered(dated, user: user)
        rememberRedated(redated, user: user, path: "/api/v1/events/batch", key: key)
        return redated
    }

    /// api-v1 §5.3.4: validate, id collision, HealthKit match, manual dedupe, insert.
    func createOne(_ state: inout State, user: String, _ request: CreateEventRequest) throws(NetworkError) -> APIEvent {
        let typeIds = state.eventTypes.values.filter { $0.userId == user }.map(\.id)
        guard typeIds.contains(request.eventTypeId.lowercased()) else {
            throw Problems.validation("event_type_id names no event type of yours")
        }
        let fenceIds = state.geofences.values.filter { $0.userId == user }.map(\.id)
        try Self.checkReference(request.geofenceId, in: fenceIds, "geofence_id")
        try Self.check(request.locationLatitude, in: Self.latitudes, "location_latitude")
        try Self.check(request.locationLongitude, in: Self.longitudes, "location_longitude")
        if (request.locationLatitude == nil) != (request.locationLongitude == nil) {
            throw Problems.validation("location_latitude and location_longitude go together")
        }
        let id = try eventId(request.id)
        let candidate = event(from: request, id: id, user: user)
        if let stored = state.events[id] {
            guard stored.userId == user else { throw Problems.idTaken }
            if Self.identical(stored, candidate) { return stored }
            throw Problems.conflict("id: another event has this id", existingId: id)
        }
        if request.sourceType == .healthkit, let sample = request.healthKitSampleId, !sample.isEmpty {
            if let match = state.events.values.first(where: {
                $0.userId == user && $0.sourceType == .healthkit && $0.healthKitSampleId == sample
            }) {
                return match
            }
            let second = request.timestamp.millisecondsSince1970 / 1000
            if let category = request.healthKitCategory,
                let match = state.events.values.first(where: {
                    $0.userId == user && $0.sourceType == .healthkit && $0.eventTypeId == candidate.eventTypeId
                        && $0.healthKitCategory == category && $0.timestamp.millisecondsSince1970 / 1000 == second
                })
            {
                return match
            }
        }
        if request.sourceType != .healthkit,
            let holder = state.events.values.first(where: {
                $0.userId == user && $0.sourceType != .healthkit && $0.eventTypeId == candidate.eventTypeId
                    && $0.timestamp == candidate.timestamp
            })
        {
            throw Problems.conflict(
                "event: an event of this type already exists at this timestamp", existingId: holder.id)
        }
        var created = candidate
        (created.createdAt, created.updatedAt) = (now, now)
        state.events[id] = created
        log(&state, user: user, .event, .create, id: id, data: created)
        return created
    }

    /// Event ids must be version-7 UUIDs whose time is at most 60 s ahead of the server's clock.
    func eventId(_ id: String?) throws(NetworkError) -> String {
        let id = try entityId(id)
        guard let milliseconds = UUIDv7.milliseconds(of: id) else {
            throw Problems.invalidUUID("an event id must be a version 7 UUID")
        }
        if let tolerance = futureIdTolerance, milliseconds > nowMilliseconds + Int64(tolerance * 1000) {
            throw Problems.futureTimestamp
        }
        return id
    }

    func event(from request: CreateEventRequest, id: String, user: String) -> APIEvent {
        APIEvent(
            id: id, userId: user, eventTypeId: request.eventTypeId.lowercased(),
            timestamp: request.timestamp.roundedToMilliseconds, notes: request.notes, isAllDay: request.isAllDay,
            sourceType: request.sourceType, details: request.details.normalized, properties: request.properties)
    }

    static func identical(_ stored: APIEvent, _ candidate: APIEvent) -> Bool {
        var stored = stored
        (stored.createdAt, stored.updatedAt, stored.eventType) = (nil, nil, nil)
        return stored == candidate
    }

    /// A partial update (api-v1 §3.5): absent fields stay; `null` clears a clearable field; `properties` replaces the
    /// map and `properties_patch` then sets or removes single keys (api-v1 §3.5a).
    public func updateEvent(
        user: String, id: String, _ request: UpdateEventRequest, key: String?
    ) throws(NetworkError)
        -> APIEvent
    {
        let id = id.lowercased()
        return try idempotent(user: user, method: "PUT", path: "/api/v1/events/\(id)", key: key, body: request) {
            (state: inout State) throws(NetworkError) -> APIEvent in
            guard var event = state.events[id], event.userId == user else {
                throw missing(state, user: user, .event, id: id, noun: "event")
            }
            let typeIds = state.eventTypes.values.filter { $0.userId == user }.map(\.id)
            try Self.checkReference(request.eventTypeId, in: typeIds, "event_type_id")
            let fenceIds = state.geofences.values.filter { $0.userId == user }.map(\.id)
            try Self.checkReference(request.geofenceId, in: fenceIds, "geofence_id")
            try Self.check(request.locationLatitude, in: Self.latitudes, "location_latitude")
            try Self.check(request.locationLongitude, in: Self.longitudes, "location_longitude")
            let stored = event
            event.eventTypeId = request.eventTypeId?.lowercased() ?? event.eventTypeId
            event.timestamp = request.timestamp?.roundedToMilliseconds ?? event.timestamp
            event.isAllDay = request.isAllDay ?? event.isAllDay
            event.sourceType = request.sourceType ?? event.sourceType
            if let notes = request.notes {
                event.notes = notes
            } else if request.cleared.contains("notes") {
                event.notes = nil
            }
            let changes = request.details.normalized
            for field in EventDetails.fields {
                if let value = changes[field] {
                    event.details[field] = value
                } else if field.clearable && request.cleared.contains(field.key) {
                    event.details[field] = nil
                }
            }
            event.properties = request.properties ?? event.properties
            for (key, value) in request.propertiesPatch ?? [:] { event.properties[key] = value }
            if (event.locationLatitude == nil) != (event.locationLongitude == nil) {
                throw Problems.validation("location_latitude and location_longitude go together")
            }
            guard event != stored else { return stored }
            if event.sourceType != .healthkit,
                let holder = state.events.values.first(where: {
                    $0.userId == user && $0.id != id && $0.sourceType != .healthkit
                        && $0.eventTypeId == event.eventTypeId && $0.timestamp == event.timestamp
                })
            {
                throw Problems.conflict(
                    "event: an event of this type already exists at this timestamp", existingId: holder.id)
            }
            event.updatedAt = now
            state.events[id] = event
            log(&state, user: user, .event, .update, id: id, data: event)
            return event
        }
    }

    /// `DELETE /events/{id}`: logged in the feed; 404 `deleted` for one deleted before (api-v1 §6.6).
    public func deleteEvent(user: String, id: String) throws(NetworkError) {
        let id = id.lowercased()
        try state.withLock { (state: inout State) throws(NetworkError) in
            guard state.events[id]?.userId == user else {
                throw missingDelete(
                    &state, user: user, .event, id: id, noun: "event", heldByAnyone: state.events[id] != nil)
            }
            state.events[id] = nil
            logDelete(&state, user: user, .event, id: id)
        }
    }

    // MARK: Reads by id and the change feed

    /// N2: true when `id` is one of `user`'s entities of that type.
    /// `GET /api/v1/events?limit&after` (api-v1 §5.3.1): the events strictly after `after`'s row, `timestamp`
    /// descending then `id` descending, with `event_type` embedded; the token of the last row when more follow.
    public func listEventsPage(user: String, limit: Int, after: String?) throws(NetworkError) -> EventsPage {
        let pageSize = (1...1000).contains(limit) ? limit : 100
        let token: EventsPageToken?
        if let after {
            guard let parsed = EventsPageToken(text: after) else {
                throw Problems.badRequest("after is not a page token")
            }
            token = parsed
        } else {
            token = nil
        }
        return state.withLock { state in
            let listed = Self.sortedEvents(
                state.events.values.filter { event in
                    event.userId == user
                        && token?.precedes(timestamp: event.timestamp.millisecondsSince1970, id: event.id) != false
                })
            let page = listed.prefix(pageSize).map { event in
                var event = event
                event.eventType = state.eventTypes[event.eventTypeId]
                return event
            }
            let more = listed.count > pageSize
            return EventsPage(events: page, nextAfter: more ? page.last.map { EventsPageToken(after: $0).text } : nil)
        }
    }

    /// `GET /api/v1/{collection}/{id}`: the entity, nil when it is not the user's (404).
    public func entity(user: String, _ type: MutationEntityType, id: String) -> APIEntity? {
        let id = id.lowercased()
        return state.withLock { state in
            switch type {
            case .event:
                guard var event = state.events[id], event.userId == user else { return nil }
                event.eventType = state.eventTypes[event.eventTypeId]
                return .event(event)
            case .eventType: return state.eventTypes[id].flatMap { $0.userId == user ? .eventType($0) : nil }
            case .geofence: return state.geofences[id].flatMap { $0.userId == user ? .geofence($0) : nil }
            case .propertyDefinition:
                return state.definitions[id].flatMap { $0.userId == user ? .propertyDefinition($0) : nil }
            }
        }
    }

    /// True when `user` holds an entity of `type` with this id (N2).
    public func exists(user: String, _ type: MutationEntityType, id: String) -> Bool {
        let id = id.lowercased()
        return state.withLock { state in
            switch type {
            case .event: state.events[id]?.userId == user
            case .eventType: state.eventTypes[id]?.userId == user
            case .geofence: state.geofences[id]?.userId == user
            case .propertyDefinition: state.definitions[id]?.userId == user
            }
        }
    }

    /// `GET /changes`: rows after `since` (exclusive), at most `limit` (1–500, else 100); 410 for a position this
    /// history does not hold (`checkPosition`).
    public func changes(
        user: String, since position: FeedPosition, limit: Int
    ) throws(NetworkError)
        -> ChangeFeedResponse
    {
        let since = position.cursor
        guard since >= 0 else { throw Problems.badRequest("since must not be negative") }
        let log = changes(of: user)
        try checkPosition(position, in: log)
        let pageSize = (1...500).contains(limit) ? limit : 100
        let rows = log.filter { $0.id > since }
        let page = Array(rows.prefix(pageSize))
        return ChangeFeedResponse(changes: page, nextCursor: page.last?.id ?? since, hasMore: rows.count > pageSize)
    }

    /// `GET /changes/latest-cursor`: the user's last change, with its time.
    public func latestPosition(user: String) -> FeedPosition {
        changes(of: user).last?.position ?? FeedPosition(cursor: 0)
    }

    /// The cursor of `latestPosition(user:)`.
    public func latestCursor(user: String) -> Int64 { latestPosition(user: user).cursor }

    /// api-v1 §6.7: a write made from a position this history does not hold is refused as a pull from it would be
    /// (`checkPosition`), before anything is written.
    public func checkWritePosition(_ position: FeedPosition, user: String) throws(NetworkError) {
        try checkPosition(position, in: changes(of: user))
    }

    /// api-v1 §6.5: a cursor above every change, or one whose change is not the one its time names (the history
    /// went back and was written again, as after `restore(_:)`), is 410 `cursor_expired`.
    func checkPosition(_ position: FeedPosition, in log: [ChangeEntry]) throws(NetworkError) {
        guard position.cursor > 0 else { return }
        let latest = log.last?.id ?? 0
        let named = log.first { $0.id == position.cursor }
        let moved =
            features.has(ServerFeatures.sinceCreatedAt)
            && position.createdAt.map { sent in
                named?.createdAt.map(\.millisecondsSince1970) != sent.millisecondsSince1970
            } == true
        if position.cursor > latest || moved {
            throw Problems.failure(
                410, "cursor_expired", "the cursor \(position.cursor) is not of this server's change history; bootstrap"
            )
        }
    }
}
