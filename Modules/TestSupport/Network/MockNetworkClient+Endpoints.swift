import Foundation
import Models
import Protocols

extension MockNetworkClient {
    // MARK: Writes (each recorded under its kind's seed name: a create of an event type is
    // `.createEventTypeWithIdempotency`)

    /// A re-send's `queuedAt` is recorded as the argument `queued_at` (RFC 3339), as the header carries it.
    public func create<Request: EntityCreateRequest>(
        _ request: Request, idempotencyKey: String, queuedAt: Date?
    ) async throws -> Request.Answer {
        var arguments = (request as? CreatePropertyDefinitionRequest).map { ["eventTypeId": $0.eventTypeId] } ?? [:]
        arguments[Self.queuedAtArgument] = queuedAt.map(RFC3339.string(from:))
        return try await call(.create(Request.entityType), arguments, key: idempotencyKey, body: request) {
            () throws(NetworkError) -> Request.Answer in
            try server.create(user: userId, request, key: idempotencyKey, queuedAt: queuedAt)
        }
    }

    /// The argument a call records when a re-send's creates were queued under (RFC 3339; `Trendy-Queued-For` on the
    /// wire).
    public static let queuedAtArgument = "queued_at"

    public func update<Request: EntityUpdateRequest>(
        id: String, _ request: Request, idempotencyKey: String
    ) async throws -> Request.Answer {
        try await call(.update(Request.entityType), ["id": id], key: idempotencyKey, body: request) {
            () throws(NetworkError) -> Request.Answer in
            try server.update(user: userId, id: id, request, key: idempotencyKey)
        }
    }

    /// N14: the named DELETE, answered with the model's time of the delete (api-v1 §6.6).
    public func deleteEntity(_ type: MutationEntityType, id: String) async throws -> Date? {
        try await call(.delete(type), ["id": id]) { () throws(NetworkError) in
            try server.delete(user: userId, type, id: id)
        }
        return server.deletedAt(user: userId, type, id: id)
    }

    // MARK: Event types

    public func getEventTypes() async throws -> [APIEventType] {
        try await call(.getEventTypes) { server.listEventTypes(user: userId) }
    }

    // MARK: Events

    public func getEvents(limit: Int, offset: Int) async throws -> [APIEvent] {
        try await call(.getEvents, ["limit": "\(limit)", "offset": "\(offset)"]) {
            () throws(NetworkError) -> [APIEvent] in
            try server.listEvents(user: userId, limit: limit, offset: offset)
        }
    }

    /// A scripted `[APIEvent]` answers it whole; otherwise it pages through `getEvents` like the real client, so
    /// scripted `getEvents` answers apply.
    public func getAllEvents(batchSize: Int) async throws -> [APIEvent] {
        if let scripted = try await call(
            .getAllEvents, ["batchSize": "\(batchSize)"], backend: { () -> [APIEvent]? in nil })
        {
            return scripted
        }
        let pageSize = max(1, batchSize)
        var events: [APIEvent] = []
        var seen = Set<String>()
        var offset = 0
        while true {
            let page = try await getEvents(limit: pageSize, offset: offset)
            for event in page where seen.insert(event.id).inserted { events.append(event) }
            if page.count < pageSize { return events }
            offset += pageSize
        }
    }

    public func createEventsBatch(
        _ events: [CreateEventRequest], idempotencyKey: String, queuedAt: Date?
    ) async throws
        -> BatchCreateEventsResponse
    {
        let arguments = queuedAt.map { [Self.queuedAtArgument: RFC3339.string(from: $0)] } ?? [:]
        return try await call(
            .createEventsBatchWithIdempotency, arguments, key: idempotencyKey,
            body: BatchCreateEventsRequest(events: events)
        ) { () throws(NetworkError) -> BatchCreateEventsResponse in
            try server.createEventsBatch(user: userId, events, key: idempotencyKey, queuedAt: queuedAt)
        }
    }

    // MARK: Geofences

    public func getGeofences(activeOnly: Bool) async throws -> [APIGeofence] {
        try await call(.getGeofences, ["activeOnly": "\(activeOnly)"]) {
            server.listGeofences(user: userId, activeOnly: activeOnly)
        }
    }

    // MARK: Property definitions

    public func getPropertyDefinitions(eventTypeId: String) async throws -> [APIPropertyDefinition] {
        try await call(.getPropertyDefinitions, ["eventTypeId": eventTypeId]) {
            () throws(NetworkError) -> [APIPropertyDefinition] in
            try server.listPropertyDefinitions(user: userId, eventTypeId: eventTypeId)
        }
    }

    // MARK: Change feed and N2

    public func getChanges(since position: FeedPosition, limit: Int) async throws -> ChangeFeedResponse {
        try await call(.getChanges, Dictionary(uniqueKeysWithValues: position.query + [("limit", "\(limit)")])) {
            () throws(NetworkError) -> ChangeFeedResponse in
            try server.changes(user: userId, since: position, limit: limit)
        }
    }

    /// Recorded as `getLatestCursor`; a scripted `FeedPosition` answers it.
    public func getLatestPosition() async throws -> FeedPosition {
        try await call(.getLatestCursor) { server.latestPosition(user: userId) }
    }

    // MARK: N7, N8, features

    public func fetchEntity(_ type: MutationEntityType, id: String) async throws -> APIEntity? {
        try await call(.fetchEntity, ["type": type.rawValue, "id": id]) { server.entity(user: userId, type, id: id) }
    }

    public func getEventsPage(limit: Int, after: String?) async throws -> EventsPage {
        var arguments = ["limit": "\(limit)"]
        if let after { arguments["after"] = after }
        return try await call(.getEventsPage, arguments) { () throws(NetworkError) -> EventsPage in
            try server.listEventsPage(user: userId, limit: limit, after: after)
        }
    }

    public func getDigest() async throws -> SyncDigest {
        try await call(.getDigest) { () throws(NetworkError) -> SyncDigest in try server.digest(user: userId) }
    }

    public func getDigestBucket(_ bucket: String) async throws -> SyncDigestBucket {
        try await call(.getDigestBucket, ["bucket": bucket]) { () throws(NetworkError) -> SyncDigestBucket in
            try server.digestBucket(user: userId, bucket: bucket)
        }
    }

    public func giveBack(_ items: [GiveBackItem]) async throws -> GiveBackResponse {
        try await call(.giveBack, body: GiveBackRequest(items: items)) { () throws(NetworkError) -> GiveBackResponse in
            try server.giveBack(user: userId, items)
        }
    }

    public func entityExists(_ type: MutationEntityType, id: String) async throws -> Bool {
        try await call(.entityExists, ["type": type.rawValue, "id": id]) { server.exists(user: userId, type, id: id) }
    }
}
