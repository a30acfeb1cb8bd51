import Foundation
import Models
import Protocols

extension MockNetworkClient {
    // MARK: Event types

    public func getEventTypes() async throws -> [APIEventType] {
        try await call(.getEventTypes) { server.listEventTypes(user: userId) }
    }

    public func createEventTypeWithIdempotency(
        _ request: CreateEventTypeRequest, idempotencyKey: String
    ) async throws
        -> APIEventType
    {
        try await call(.createEventTypeWithIdempotency, key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIEventType in
            try server.createEventType(user: userId, request, key: idempotencyKey)
        }
    }

    public func updateEventTypeWithIdempotency(
        id: String, _ request: UpdateEventTypeRequest, idempotencyKey: String
    )
        async throws -> APIEventType
    {
        try await call(.updateEventTypeWithIdempotency, ["id": id], key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIEventType in
            try server.updateEventType(user: userId, id: id, request, key: idempotencyKey)
        }
    }

    /// N14: the named DELETE, answered with the model's time of the delete (api-v1 §6.6).
    public func deleteEntity(_ type: MutationEntityType, id: String) async throws -> Date? {
        switch type {
        case .event: try await deleteEvent(id: id)
        case .eventType: try await deleteEventType(id: id)
        case .geofence: try await deleteGeofence(id: id)
        case .propertyDefinition: try await deletePropertyDefinition(id: id)
        }
        return server.deletedAt(user: userId, type, id: id)
    }

    public func deleteEventType(id: String) async throws {
        try await call(.deleteEventType, ["id": id]) { () throws(NetworkError) in
            try server.deleteEventType(user: userId, id: id)
        }
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

    public func createEventWithIdempotency(
        _ request: CreateEventRequest, idempotencyKey: String
    ) async throws
        -> APIEvent
    {
        try await call(.createEventWithIdempotency, key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIEvent in try server.createEvent(user: userId, request, key: idempotencyKey)
        }
    }

    public func createEventsBatch(
        _ events: [CreateEventRequest], idempotencyKey: String
    ) async throws
        -> BatchCreateEventsResponse
    {
        try await call(
            .createEventsBatchWithIdempotency, key: idempotencyKey, body: BatchCreateEventsRequest(events: events)
        ) { () throws(NetworkError) -> BatchCreateEventsResponse in
            try server.createEventsBatch(user: userId, events, key: idempotencyKey)
        }
    }

    public func updateEventWithIdempotency(
        id: String, _ request: UpdateEventRequest, idempotencyKey: String
    )
        async throws -> APIEvent
    {
        try await call(.updateEventWithIdempotency, ["id": id], key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIEvent in
            try server.updateEvent(user: userId, id: id, request, key: idempotencyKey)
        }
    }

    public func deleteEvent(id: String) async throws {
        try await call(.deleteEvent, ["id": id]) { () throws(NetworkError) in
            try server.deleteEvent(user: userId, id: id)
        }
    }

    // MARK: Geofences

    public func getGeofences(activeOnly: Bool) async throws -> [APIGeofence] {
        try await call(.getGeofences, ["activeOnly": "\(activeOnly)"]) {
            server.listGeofences(user: userId, activeOnly: activeOnly)
        }
    }

    public func createGeofenceWithIdempotency(
        _ request: CreateGeofenceRequest, idempotencyKey: String
    ) async throws
        -> APIGeofence
    {
        try await call(.createGeofenceWithIdempotency, key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIGeofence in
            try server.createGeofence(user: userId, request, key: idempotencyKey)
        }
    }

    public func updateGeofenceWithIdempotency(
        id: String, _ request: UpdateGeofenceRequest, idempotencyKey: String
    )
        async throws -> APIGeofence
    {
        try await call(.updateGeofenceWithIdempotency, ["id": id], key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIGeofence in
            try server.updateGeofence(user: userId, id: id, request, key: idempotencyKey)
        }
    }

    public func deleteGeofence(id: String) async throws {
        try await call(.deleteGeofence, ["id": id]) { () throws(NetworkError) in
            try server.deleteGeofence(user: userId, id: id)
        }
    }

    // MARK: Property definitions

    public func getPropertyDefinitions(eventTypeId: String) async throws -> [APIPropertyDefinition] {
        try await call(.getPropertyDefinitions, ["eventTypeId": eventTypeId]) {
            () throws(NetworkError) -> [APIPropertyDefinition] in
            try server.listPropertyDefinitions(user: userId, eventTypeId: eventTypeId)
        }
    }

    public func createPropertyDefinitionWithIdempotency(
        _ request: CreatePropertyDefinitionRequest, idempotencyKey: String
    ) async throws -> APIPropertyDefinition {
        try await call(
            .createPropertyDefinitionWithIdempotency, ["eventTypeId": request.eventTypeId], key: idempotencyKey,
            body: request
        ) { () throws(NetworkError) -> APIPropertyDefinition in
            try server.createPropertyDefinition(
                user: userId, eventTypeId: request.eventTypeId, request, key: idempotencyKey)
        }
    }

    public func updatePropertyDefinitionWithIdempotency(
        id: String, _ request: UpdatePropertyDefinitionRequest, idempotencyKey: String
    ) async throws -> APIPropertyDefinition {
        try await call(.updatePropertyDefinitionWithIdempotency, ["id": id], key: idempotencyKey, body: request) {
            () throws(NetworkError) -> APIPropertyDefinition in
            try server.updatePropertyDefinition(user: userId, id: id, request, key: idempotencyKey)
        }
    }

    public func deletePropertyDefinition(id: String) async throws {
        try await call(.deletePropertyDefinition, ["id": id]) { () throws(NetworkError) in
            try server.deletePropertyDefinition(user: userId, id: id)
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
