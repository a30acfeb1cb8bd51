import Foundation
import Models

/// The Trendy API v1 as the sync engine sees it (sync-engine §2.1–§2.3): the writes generic over the entity's kind,
/// the reads, the feed and N1–N14. The seed's 24 named methods and N3–N6 are conveniences, defined once in extensions
/// on the requirements they stand for; no client implements them again.
///
/// Implementations send `Authorization: Bearer` and `Accept: application/json` on every request,
/// `Idempotency-Key` on every POST and PUT (never on GET or DELETE), retry a 401 once after a token refresh and a
/// 429 at most three times within 30 s of waiting, and throw only `NetworkError`. Ids are lowercase UUIDs.
/// `Sendable` because it is handed to the `SyncEngine` actor at init.
public protocol NetworkClientProtocol: Sendable {
    // MARK: Writes, generic over the kind (the seed's named calls are conveniences, in the extension below)

    /// `POST` of a create to its kind's collection (`request.createPath`) with the given key: the mutation's
    /// `client_request_id`. The seed's `create…WithIdempotency` calls, for every kind. `queuedAt`: nil on a first
    /// send; on a re-send whose first answer never came, when the create was queued, by the clock of the client
    /// (sent as how long ago, `Trendy-Queued-For`, api-v1 §7).
    func create<Request: EntityCreateRequest>(
        _ request: Request, idempotencyKey: String, queuedAt: Date?
    ) async throws -> Request.Answer

    /// N3–N6. `PUT /api/v1/{collection}/{id}` with the mutation's key.
    func update<Request: EntityUpdateRequest>(
        id: String, _ request: Request, idempotencyKey: String
    ) async throws -> Request.Answer

    /// N14. `DELETE /api/v1/{collection}/{id}`, answering the time the server recorded for the delete
    /// (`Trendy-Deleted-At`, api-v1 §6.6); nil from a server that does not say. A device records it as the delete's
    /// acknowledgment (sync-engine R15), never its own clock's reading. Deleting an event type deletes its events and
    /// property definitions on the server too; deleting a geofence clears `geofence_id` on its events.
    func deleteEntity(_ type: MutationEntityType, id: String) async throws -> Date?

    // MARK: Event types

    /// `GET /api/v1/event-types`: the caller's types by `created_at`, then `id`. Also the engine's health check.
    func getEventTypes() async throws -> [APIEventType]

    // MARK: Events

    /// `GET /api/v1/events?limit&offset`: one page, `timestamp` descending.
    func getEvents(limit: Int, offset: Int) async throws -> [APIEvent]

    /// Every event: `getEvents` with `offset += batchSize` until a page is shorter than `batchSize`,
    /// de-duplicated by id.
    func getAllEvents(batchSize: Int) async throws -> [APIEvent]

    /// `getAllEvents(batchSize:)`, calling `progress` with the number of events received so far after each page,
    /// so a long bootstrap can show how far it got. The default calls it once, at the end.
    func getAllEvents(batchSize: Int, progress: @escaping @Sendable (Int) -> Void) async throws -> [APIEvent]

    // MARK: Geofences

    /// `GET /api/v1/geofences`, with `?active=true` only when `activeOnly` is true.
    func getGeofences(activeOnly: Bool) async throws -> [APIGeofence]

    // MARK: Property definitions

    /// `GET /api/v1/event-types/{id}/properties`: by `display_order`, `created_at`, `id`.
    func getPropertyDefinitions(eventTypeId: String) async throws -> [APIPropertyDefinition]

    // MARK: Change feed

    /// `GET /api/v1/changes?since&limit`: rows with id > `since`, ascending, at most `limit`. A position with its
    /// time also sends `since_created_at`, and a server with that feature answers 410 when the change `since`
    /// names is not the one the time says (api-v1 §6.5).
    func getChanges(since position: FeedPosition, limit: Int) async throws -> ChangeFeedResponse

    /// `GET /api/v1/changes/latest-cursor`: the largest change id of the user, 0 when none, with that change's time
    /// where the server sends it.
    func getLatestPosition() async throws -> FeedPosition

    // MARK: Additions N1–N6 (sync-engine §2.2)

    /// N1. `POST /api/v1/events/batch` with the given key: the engine's only event-create call.
    /// 201, 207, and a 400 whose body decodes as a batch response are returned as values. `queuedAt`: as for
    /// `create`, the latest time at which one of the items was queued.
    func createEventsBatch(
        _ events: [CreateEventRequest], idempotencyKey: String, queuedAt: Date?
    ) async throws
        -> BatchCreateEventsResponse

    /// N2. `GET /api/v1/{collection}/{id}`: true on 200, false on 404; anything else throws.
    func entityExists(_ type: MutationEntityType, id: String) async throws -> Bool

    // MARK: Revision 3 (sync-engine R0, R4, R11, R14)

    /// N7. `GET /api/v1/{collection}/{id}`: the entity on 200; nil on 404, or on a 5xx whose message says "not found"
    /// (the original backend); anything else throws. What an owed read-back writes (R4).
    func fetchEntity(_ type: MutationEntityType, id: String) async throws -> APIEntity?

    /// N8. `GET /api/v1/events?limit&after`: one keyset page (api-v1 §5.3.1). `after` nil starts the listing; the
    /// page's `nextAfter` continues it and is nil on the last page. Only on servers with the `after` feature.
    func getEventsPage(limit: Int, after: String?) async throws -> EventsPage

    /// N9. `GET /api/v1/changes/stream` from `cursor` (api-v1 §13): `.opened` once the server accepted it, then
    /// every entry above `cursor` once, in id order, as it commits; `.reset` or `.reauth` before the server closes
    /// it. One connection: the sequence finishes when the server closes, and throws `NetworkError` when it cannot
    /// open (404 on a server without the route, 410, 429 `stream_limit`, 401) or drops. The caller reconnects from
    /// the last entry it applied (sync-engine R12). Only on servers with the `stream` feature. A position with its
    /// time is checked as `getChanges` checks it.
    func changeStream(from position: FeedPosition) -> AsyncThrowingStream<StreamEvent, any Error>

    /// N10. `GET /api/v1/sync/digest` (api-v1 §14): the server's digest of everything the user holds, at a cursor.
    /// Only on servers with the `digest` feature (R10).
    func getDigest() async throws -> SyncDigest

    /// N11. `GET /api/v1/sync/digest?bucket=XX`: the entities of one bucket with their hashes, sorted by id.
    func getDigestBucket(_ bucket: String) async throws -> SyncDigestBucket

    /// The `Trendy-Features` of the last answer received (R0); nil before any answer. An answer without the header
    /// (the original backend) reports no feature.
    var serverFeatures: ServerFeatures? { get }

    /// N12. `POST /api/v1/sync/give-back` (api-v1 §15.1): entities and deletes the device holds as acknowledged,
    /// handed back to a server that went back to a backup; at most 500 items. Only on servers that announce a
    /// history (R15).
    func giveBack(_ items: [GiveBackItem]) async throws -> GiveBackResponse

    /// The `Trendy-History` of the last answer that carried one (api-v1 §15); nil before such an answer and against
    /// a server that sends none (R15).
    var serverHistory: ServerHistory? { get }

    /// N13. The feed position the writes sent from now on are made from (nil: none). Every create, update, delete and
    /// batch carries it as `Trendy-Feed-Position` (api-v1 §6.7); the give-back does not. A server that went back to a
    /// backup since refuses such a write with 410 `cursor_expired` and writes nothing (sync-engine R15).
    func setWritePosition(_ position: FeedPosition?)
}

extension NetworkClientProtocol {
    /// `GET /api/v1/changes?since&limit` from a bare cursor, unchecked.
    public func getChanges(since cursor: Int64, limit: Int) async throws -> ChangeFeedResponse {
        try await getChanges(since: FeedPosition(cursor: cursor), limit: limit)
    }

    /// The largest change id of the user, 0 when none.
    public func getLatestCursor() async throws -> Int64 { try await getLatestPosition().cursor }

    /// The change stream from a bare cursor, unchecked.
    public func changeStream(since cursor: Int64) -> AsyncThrowingStream<StreamEvent, any Error> {
        changeStream(from: FeedPosition(cursor: cursor))
    }

    /// `POST /api/v1/event-types` with a fresh random `Idempotency-Key`.
    public func createEventType(_ request: CreateEventTypeRequest) async throws -> APIEventType {
        try await createEventTypeWithIdempotency(request, idempotencyKey: Self.freshKey())
    }

    /// `PUT /api/v1/event-types/{id}` with a fresh random key.
    public func updateEventType(id: String, _ request: UpdateEventTypeRequest) async throws -> APIEventType {
        try await updateEventTypeWithIdempotency(id: id, request, idempotencyKey: Self.freshKey())
    }

    /// `POST /api/v1/events` with a fresh random key.
    public func createEvent(_ request: CreateEventRequest) async throws -> APIEvent {
        try await createEventWithIdempotency(request, idempotencyKey: Self.freshKey())
    }

    /// `POST` of a create with the given key, sent for the first time.
    public func create<Request: EntityCreateRequest>(
        _ request: Request, idempotencyKey: String
    ) async throws -> Request.Answer {
        try await create(request, idempotencyKey: idempotencyKey, queuedAt: nil)
    }

    /// `POST /api/v1/events/batch` with the given key, sent for the first time.
    public func createEventsBatch(
        _ events: [CreateEventRequest], idempotencyKey: String
    ) async throws -> BatchCreateEventsResponse {
        try await createEventsBatch(events, idempotencyKey: idempotencyKey, queuedAt: nil)
    }

    /// `POST /api/v1/events/batch` with a fresh random key. A 400 carrying a batch body is returned, not thrown.
    public func createEventsBatch(_ events: [CreateEventRequest]) async throws -> BatchCreateEventsResponse {
        try await createEventsBatch(events, idempotencyKey: Self.freshKey())
    }

    /// `PUT /api/v1/events/{id}` with a fresh random key.
    public func updateEvent(id: String, _ request: UpdateEventRequest) async throws -> APIEvent {
        try await updateEventWithIdempotency(id: id, request, idempotencyKey: Self.freshKey())
    }

    /// `POST /api/v1/geofences` with a fresh random key.
    public func createGeofence(_ request: CreateGeofenceRequest) async throws -> APIGeofence {
        try await createGeofenceWithIdempotency(request, idempotencyKey: Self.freshKey())
    }

    /// `PUT /api/v1/geofences/{id}` with a fresh random key.
    public func updateGeofence(id: String, _ request: UpdateGeofenceRequest) async throws -> APIGeofence {
        try await updateGeofenceWithIdempotency(id: id, request, idempotencyKey: Self.freshKey())
    }

    /// `POST /api/v1/event-types/{eventTypeId}/properties` with a fresh random key.
    public func createPropertyDefinition(
        eventTypeId: String, _ request: CreatePropertyDefinitionRequest
    ) async throws -> APIPropertyDefinition {
        var request = request
        request.eventTypeId = eventTypeId
        return try await createPropertyDefinitionWithIdempotency(request, idempotencyKey: Self.freshKey())
    }

    /// `PUT /api/v1/property-definitions/{id}` with a fresh random key.
    public func updatePropertyDefinition(
        id: String, _ request: UpdatePropertyDefinitionRequest
    ) async throws -> APIPropertyDefinition {
        try await updatePropertyDefinitionWithIdempotency(id: id, request, idempotencyKey: Self.freshKey())
    }

    /// A key no earlier request used: a UUIDv7 of now (S1: no other kind of key is sent).
    static func freshKey() -> String { UUIDv7.generate(at: Date()) }

    public func getAllEvents(batchSize: Int, progress: @escaping @Sendable (Int) -> Void) async throws -> [APIEvent] {
        let events = try await getAllEvents(batchSize: batchSize)
        progress(events.count)
        return events
    }
}
