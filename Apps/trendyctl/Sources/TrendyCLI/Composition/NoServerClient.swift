import Foundation
import Models
import Protocols

/// The network client of a graph built without a server: every call fails as if offline. Local commands never
/// call it; `sync` refuses to start without a server before it could.
struct NoServerClient: NetworkClientProtocol {
    static let unavailable = NetworkError.transport("no server is configured")

    func create<Request: EntityCreateRequest>(
        _ request: Request, idempotencyKey: String, queuedAt: Date?
    ) async throws -> Request.Answer { throw Self.unavailable }
    func update<Request: EntityUpdateRequest>(
        id: String, _ request: Request, idempotencyKey: String
    ) async throws -> Request.Answer { throw Self.unavailable }
    func deleteEntity(_ type: MutationEntityType, id: String) async throws -> Date? { throw Self.unavailable }
    func getEventTypes() async throws -> [APIEventType] { throw Self.unavailable }
    func getEvents(limit: Int, offset: Int) async throws -> [APIEvent] { throw Self.unavailable }
    func getAllEvents(batchSize: Int) async throws -> [APIEvent] { throw Self.unavailable }
    func getGeofences(activeOnly: Bool) async throws -> [APIGeofence] { throw Self.unavailable }
    func getPropertyDefinitions(eventTypeId: String) async throws -> [APIPropertyDefinition] { throw Self.unavailable }
    func getChanges(since position: FeedPosition, limit: Int) async throws -> ChangeFeedResponse {
        throw Self.unavailable
    }
    func getLatestPosition() async throws -> FeedPosition { throw Self.unavailable }
    func createEventsBatch(
        _ events: [CreateEventRequest], idempotencyKey: String, queuedAt: Date?
    ) async throws -> BatchCreateEventsResponse { throw Self.unavailable }
    func entityExists(_ type: MutationEntityType, id: String) async throws -> Bool { throw Self.unavailable }
    func fetchEntity(_ type: MutationEntityType, id: String) async throws -> APIEntity? { throw Self.unavailable }
    func getEventsPage(limit: Int, after: String?) async throws -> EventsPage { throw Self.unavailable }
    var serverFeatures: ServerFeatures? { nil }
    var serverHistory: ServerHistory? { nil }
    func setWritePosition(_ position: FeedPosition?) {}
    func giveBack(_ items: [GiveBackItem]) async throws -> GiveBackResponse { throw Self.unavailable }
    func getDigest() async throws -> SyncDigest { throw Self.unavailable }
    func changeStream(from position: FeedPosition) -> AsyncThrowingStream<StreamEvent, any Error> {
        AsyncThrowingStream { $0.finish(throwing: Self.unavailable) }
    }
    func getDigestBucket(_ bucket: String) async throws -> SyncDigestBucket { throw Self.unavailable }
}
