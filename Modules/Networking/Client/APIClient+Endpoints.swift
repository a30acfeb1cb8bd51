import Foundation
import Models
import Protocols

// The requirements of sync-engine §2.1–§2.2, each one HTTP call.
extension APIClient {
    // MARK: Writes

    public func create<Request: EntityCreateRequest>(
        _ request: Request, idempotencyKey: String, queuedAt: Date?
    ) async throws -> Request.Answer {
        let path = request.createPath(segment: segment)
        return try await send(
            .post(path, body: try Self.body(request), key: idempotencyKey, queuedAt: queuedAt), as: Request.Answer.self)
    }

    public func update<Request: EntityUpdateRequest>(
        id: String, _ request: Request, idempotencyKey: String
    ) async throws -> Request.Answer {
        let path = "\(Request.entityType.pathComponent)/\(segment(id))"
        return try await send(.put(path, body: try Self.body(request), key: idempotencyKey), as: Request.Answer.self)
    }

    // MARK: Event types

    public func getEventTypes() async throws -> [APIEventType] {
        try await allPages("event-types", as: APIEventType.self)
    }

    /// Every page of a keyset-paged list (api-v1 §5.2, §5.5): the first request as a server without paging expects
    /// it, then one per `X-Next-After`, until a page carries none.
    func allPages<Entity: Decodable>(
        _ path: String, query: [(name: String, value: String)] = [], as type: Entity.Type
    ) async throws(NetworkError) -> [Entity] {
        var answer = try await send(.get(path, query: query))
        var entities = try decode([Entity].self, from: answer)
        while let next = answer.nextAfter {
            answer = try await send(.get(path, query: query + [(name: "after", value: next)]))
            entities += try decode([Entity].self, from: answer)
        }
        return entities
    }

    // MARK: Events

    public func getEvents(limit: Int, offset: Int) async throws -> [APIEvent] {
        try await send(.get("events", query: [("limit", "\(limit)"), ("offset", "\(offset)")]), as: [APIEvent].self)
    }

    /// Pages with `offset += batchSize` until a page is shorter than `batchSize`; keeps the first copy of each id
    /// (offset paging can repeat an event when rows shift during the listing).
    ///
    /// The next page is requested as soon as a page's bytes arrived, so the server prepares it while this one is
    /// decoded; a short last page leaves that request unused. The listing is held whole — it is a bootstrap's
    /// snapshot — so repeated values are shared (`APIEvent.Interner`) and ids are remembered as 16 bytes.
    public func getAllEvents(batchSize: Int) async throws -> [APIEvent] {
        try await getAllEvents(batchSize: batchSize) { _ in }
    }

    public func getAllEvents(batchSize: Int, progress: @escaping @Sendable (Int) -> Void) async throws -> [APIEvent] {
        let pageSize = max(1, batchSize)
        func page(at offset: Int) -> Endpoint {
            .get("events", query: [("limit", "\(pageSize)"), ("offset", "\(offset)")])
        }
        var events: [APIEvent] = []
        var seen = SeenIds()
        var interner = APIEvent.Interner()
        var offset = 0
        var answer = try await send(page(at: 0))
        while true {
            let nextPage = page(at: offset + pageSize)
            async let next = send(nextPage)
            let listed = try decodeEvents(from: answer)
            for var event in listed where seen.insert(event.id) {
                interner.intern(&event)
                events.append(event)
            }
            progress(events.count)
            if listed.count < pageSize { return events }  // leaving the scope cancels and awaits `next`
            offset += pageSize
            answer = try await next
        }
    }

    /// N1. 201 and 207 are results; so is a 400 whose body is a batch result (every item failed, original backend).
    public func createEventsBatch(
        _ events: [CreateEventRequest], idempotencyKey: String, queuedAt: Date?
    ) async throws
        -> BatchCreateEventsResponse
    {
        let body = try Self.body(BatchCreateEventsRequest(events: events))
        let endpoint = Endpoint.post("events/batch", body: body, key: idempotencyKey, queuedAt: queuedAt)
        let answer = try await send(endpoint) { status, data in
            status == 400 && (try? JSONCoding.decode(BatchCreateEventsResponse.self, from: data)) != nil
        }
        var response = try decode(BatchCreateEventsResponse.self, from: answer)
        response.httpStatus = answer.status
        response.replayed = answer.replayed
        return response
    }

    // MARK: Geofences

    public func getGeofences(activeOnly: Bool) async throws -> [APIGeofence] {
        try await allPages("geofences", query: activeOnly ? [("active", "true")] : [], as: APIGeofence.self)
    }

    // MARK: Property definitions

    public func getPropertyDefinitions(eventTypeId: String) async throws -> [APIPropertyDefinition] {
        try await send(.get("event-types/\(segment(eventTypeId))/properties"), as: [APIPropertyDefinition].self)
    }

    // MARK: Change feed

    public func getChanges(since position: FeedPosition, limit: Int) async throws -> ChangeFeedResponse {
        let answer = try await send(.get("changes", query: position.query + [("limit", "\(limit)")]))
        do {
            return try ChangeFeedResponse(jsonBytes: answer.body)
        } catch {
            let preview = String(decoding: answer.body.prefix(120), as: UTF8.self)
            throw NetworkError.decoding(
                status: answer.status, message: "expected ChangeFeedResponse (\(error)): \(preview)")
        }
    }

    public func getLatestPosition() async throws -> FeedPosition {
        try await send(.get("changes/latest-cursor"), as: FeedPosition.self)
    }

    // MARK: N2

    /// 200 → true, 404 → false; any other answer throws.
    public func entityExists(_ type: MutationEntityType, id: String) async throws -> Bool {
        let answer = try await send(.get("\(type.pathComponent)/\(segment(id))")) { status, _ in status == 404 }
        return answer.status != 404
    }

    /// N14: the answer's `Trendy-Deleted-At`, the time the server recorded for the delete (api-v1 §6.6).
    public func deleteEntity(_ type: MutationEntityType, id: String) async throws -> Date? {
        try await send(.delete("\(type.pathComponent)/\(segment(id))")).deletedAt
    }

    // MARK: N7, N8 (sync-engine R4, R11)

    /// 200 → the entity; 404, or a 5xx whose message says "not found" (the original backend), → nil.
    public func fetchEntity(_ type: MutationEntityType, id: String) async throws -> APIEntity? {
        let endpoint = Endpoint.get("\(type.pathComponent)/\(segment(id))")
        let answer: Answer
        do {
            answer = try await send(endpoint) { status, _ in status == 404 }
        } catch {
            if Self.meansNotFound(error) { return nil }
            throw error
        }
        if answer.status == 404 { return nil }
        switch type {
        case .eventType: return .eventType(try decode(APIEventType.self, from: answer))
        case .event: return .event(try decode(APIEvent.self, from: answer))
        case .geofence: return .geofence(try decode(APIGeofence.self, from: answer))
        case .propertyDefinition: return .propertyDefinition(try decode(APIPropertyDefinition.self, from: answer))
        }
    }

    /// The original backend answers some missing ids with a 500 whose message says "not found" (api-v1 §12.1).
    static func meansNotFound(_ error: NetworkError) -> Bool {
        guard case .http(let failure) = error, failure.status >= 500 else { return false }
        return (failure.message ?? "").lowercased().contains("not found")
    }

    public func getEventsPage(limit: Int, after: String?) async throws -> EventsPage {
        let answer = try await eventsPageAnswer(limit: limit, after: after)
        // The server works on the next page while this one is read (the pages of a bootstrap come one after the
        // other, so the next is all but certain to be asked for).
        if let next = answer.nextAfter { prefetchEventsPage(limit: limit, after: next) }
        return EventsPage(events: try decodeEvents(from: answer), nextAfter: answer.nextAfter)
    }

    public func getDigest() async throws -> SyncDigest {
        try decode(SyncDigest.self, from: try await send(.get("sync/digest")))
    }

    public func getDigestBucket(_ bucket: String) async throws -> SyncDigestBucket {
        try decode(
            SyncDigestBucket.self, from: try await send(.get("sync/digest", query: [(name: "bucket", value: bucket)])))
    }

    public func giveBack(_ items: [GiveBackItem]) async throws -> GiveBackResponse {
        var endpoint = Endpoint.post(
            "sync/give-back", body: try Self.body(GiveBackRequest(items: items)), key: UUIDv7.generate(at: clock.now()))
        endpoint.sendsFeedPosition = false  // made for a server that went back: api-v1 §15.1
        return try await send(endpoint, as: GiveBackResponse.self)
    }

    // MARK: Helpers

    static func body<Request: Encodable>(_ request: Request) throws(NetworkError) -> Data {
        do {
            return try JSONCoding.encode(request)
        } catch {
            throw .decoding(status: 0, message: "the request could not be encoded: \(error)")
        }
    }
}

/// Ids already listed, case-insensitively: UUIDs as their 16 bytes, anything else as lowercased text.
private struct SeenIds {
    private var uuids = Set<UUID>()
    private var others = Set<String>()

    /// True when `id` was not seen before.
    mutating func insert(_ id: String) -> Bool {
        if let uuid = UUID(uuidString: id) { return uuids.insert(uuid).inserted }
        return others.insert(id.lowercased()).inserted
    }
}
