import Foundation
import Models
import Networking
import Protocols
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// `APIClient` against `trendy-server --quirks original`: the tolerances of api-v1 §12.1, over real HTTP.
@Suite("APIClient against the original backend's quirks")
struct OriginalQuirksTests {
    static func withOriginal(
        rateLimit: Int? = nil, _ body: (APIClient, LiveTrendyServer) async throws -> Void
    ) async throws {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.quirks = .original
        configuration.rateLimitPerMinute = rateLimit
        try await LiveTrendyServer.with(configuration) { server in
            let api = APIClient(
                configuration: try .init(serverRoot: server.root, maxRateLimitRetries: 0),
                tokenProvider: StaticTokenProvider(server.newUser().token))
            try await body(api, server)
        }
    }

    static func newId() -> String { UUIDv7.generate(at: Date()) }

    static func type(_ api: APIClient, _ name: String = "Coffee") async throws -> APIEventType {
        try await api.createEventTypeWithIdempotency(
            CreateEventTypeRequest(id: newId(), name: name, color: "#000", icon: "cup"), idempotencyKey: newId())
    }

    static func failure(_ body: () async throws -> Void) async -> HTTPFailure? {
        do {
            try await body()
        } catch let NetworkError.http(failure) {
            return failure
        } catch {
            Issue.record("expected an HTTP failure, got \(error)")
        }
        return nil
    }

    @Test("items 1–2: legacy {\"error\"} bodies and 500 for a missing entity are read as 'not found'")
    func legacyNotFound() async throws {
        try await Self.withOriginal { api, _ in
            let failure = await Self.failure {
                _ = try await api.updateEventTypeWithIdempotency(
                    id: Self.newId(), UpdateEventTypeRequest(name: "x", color: nil, icon: nil), idempotencyKey: "k")
            }
            #expect(failure?.status == 500 && failure?.problemType == nil)
            #expect(failure?.message?.contains("not found") == true)
            let delete = await Self.failure { try await api.deleteEvent(id: Self.newId()) }
            #expect(delete?.status == 500 && delete?.message == "event not found")
        }
    }

    @Test("item 3: uniqueness is a 500 whose message says duplicate key")
    func duplicatesAs500() async throws {
        try await Self.withOriginal { api, _ in
            _ = try await Self.type(api, "Run")
            let failure = await Self.failure { _ = try await Self.type(api, "Run") }
            #expect(failure?.status == 500)
            #expect(failure?.message?.contains("duplicate key") == true && failure?.message?.contains("23505") == true)
        }
    }

    @Test("items 4, 6: creates answer 200; a duplicate timestamp is a 409 without the word duplicate")
    func createsAnd409() async throws {
        try await Self.withOriginal { api, _ in
            let type = try await Self.type(api)
            let moment = Date().addingTimeInterval(-3600).roundedToMilliseconds
            let event = try await api.createEventWithIdempotency(
                CreateEventRequest(id: Self.newId(), eventTypeId: type.id, timestamp: moment), idempotencyKey: "a")
            #expect(event.eventTypeId == type.id)
            let failure = await Self.failure {
                _ = try await api.createEventWithIdempotency(
                    CreateEventRequest(id: Self.newId(), eventTypeId: type.id, timestamp: moment), idempotencyKey: "b")
            }
            #expect(failure?.status == 409 && failure?.message?.contains("duplicate") == false)
            #expect(failure?.existingId == nil, "a legacy body carries no existing_id")
        }
    }

    @Test("item 7: one duplicate fails the whole batch with 500; every item failing is a 400 result, returned")
    func batches() async throws {
        try await Self.withOriginal { api, _ in
            let type = try await Self.type(api)
            let moment = Date().addingTimeInterval(-60).roundedToMilliseconds
            _ = try await api.createEventsBatch(
                [CreateEventRequest(id: Self.newId(), eventTypeId: type.id, timestamp: moment)], idempotencyKey: "1")
            let whole = await Self.failure {
                _ = try await api.createEventsBatch(
                    [
                        CreateEventRequest(
                            id: Self.newId(), eventTypeId: type.id, timestamp: moment.addingTimeInterval(1)),
                        CreateEventRequest(id: Self.newId(), eventTypeId: type.id, timestamp: moment),
                    ], idempotencyKey: "2")
            }
            #expect(whole?.status == 500 && whole?.message?.contains("duplicate key") == true)
            #expect(try await api.getEvents(limit: 10, offset: 0).count == 1, "nothing of the failed batch is stored")
            let missing = Self.newId()
            let allFailed = try await api.createEventsBatch(
                [CreateEventRequest(id: Self.newId(), eventTypeId: missing, timestamp: moment)], idempotencyKey: "3")
            #expect(allFailed.failed == 1 && allFailed.errors.first?.message == "invalid event type: \(missing)")
            #expect(allFailed.errors.first?.type == nil)
            #expect(allFailed.httpStatus == 400, "the original answers 400 when every item failed")
        }
    }

    @Test("item 6: a HealthKit match returns another id and a partial object, recognisable as incomplete")
    func partialHealthKitMatch() async throws {
        try await Self.withOriginal { api, _ in
            let type = try await Self.type(api)
            func sample() -> CreateEventRequest {
                CreateEventRequest(
                    id: Self.newId(), eventTypeId: type.id, timestamp: Date().addingTimeInterval(-90),
                    sourceType: .healthkit, details: EventDetails(healthKitSampleId: "HK-1", healthKitCategory: "steps")
                )
            }
            let first = try await api.createEventsBatch([sample()], idempotencyKey: "1")
            let second = try await api.createEventsBatch([sample()], idempotencyKey: "2")
            let match = try #require(second.created.first)
            #expect(match.id == first.created.first?.id && match.healthKitSampleId == "HK-1")
            #expect(!match.isComplete && match.userId.isEmpty && match.timestamp.isZeroInstant)
            let rows = try await api.getChanges(since: 0, limit: 100).changes.filter { $0.entityType == "event" }
            #expect(rows.map(\.operation) == ["create", "update"], "the match logs a partial update row")
            #expect(rows[1].data?["user_id"] == "" && rows[1].data?["event_type_id"] == "")
        }
    }

    @Test("items 9, 14: the single route drops location; the feed omits nulls and does not log cascades")
    func feedAndSingleRoute() async throws {
        try await Self.withOriginal { api, _ in
            let type = try await Self.type(api)
            let event = try await api.createEventWithIdempotency(
                CreateEventRequest(
                    id: Self.newId(), eventTypeId: type.id, timestamp: Date().addingTimeInterval(-30),
                    details: EventDetails(locationLatitude: 1, locationLongitude: 2)),
                idempotencyKey: "k")
            #expect(event.locationLatitude == nil)
            let cursor = try await api.getLatestCursor()
            let create = try await api.getChanges(since: 0, limit: 10).changes.first { $0.entityType == "event" }
            #expect(create?.data?["notes"] == nil && create?.data?["properties"] == nil, "nulls and {} omitted")
            try await api.deleteEventType(id: type.id)
            let rows = try await api.getChanges(since: cursor, limit: 10).changes
            #expect(rows.map { "\($0.entityType):\($0.operation)" } == ["event_type:delete"])
            #expect(try await api.getEvents(limit: 10, offset: 0).isEmpty, "the cascade still happened")
        }
    }

    @Test("items 9, 13: the single route drops location_name too; times are Go's form, no fraction when zero")
    func originalTimeForms() async throws {
        try await Self.withOriginal { api, server in
            let type = try await Self.type(api)
            let whole = Date(timeIntervalSince1970: 1_790_000_000)
            let fraction = Date(timeIntervalSince1970: 1_790_000_000.25)
            let event = try await api.createEventWithIdempotency(
                CreateEventRequest(
                    id: Self.newId(), eventTypeId: type.id, timestamp: whole,
                    details: EventDetails(locationName: "Café")),
                idempotencyKey: "k1")
            #expect(event.locationName == nil && event.timestamp == whole, "decoded from the original's form")
            _ = try await api.createEventWithIdempotency(
                CreateEventRequest(id: Self.newId(), eventTypeId: type.id, timestamp: fraction), idempotencyKey: "k2")
            let listing = try await RawHTTP.send(
                "GET", server.root.text + "/api/v1/events?limit=10", token: server.token(for: event.userId))
            #expect(listing.text.contains(#""timestamp":"2026-09-21T14:13:20Z""#), "\(listing.text)")
            #expect(listing.text.contains(#""timestamp":"2026-09-21T14:13:20.25Z""#), "\(listing.text)")
            #expect(!listing.text.contains(".000Z"))
            let events = try await api.getEvents(limit: 10, offset: 0)
            #expect(Set(events.map(\.timestamp)) == [whole, fraction])
        }
    }

    @Test("item 18: a rate-limit 429 has a legacy body and Retry-After: 60")
    func legacyRateLimit() async throws {
        try await Self.withOriginal(rateLimit: 1) { api, _ in
            _ = try await api.getEventTypes()
            let failure = await Self.failure { _ = try await api.getEventTypes() }
            #expect(failure?.status == 429 && failure?.retryAfter == 60 && failure?.message == "rate limit exceeded")
        }
    }

    @Test("items 1, 17: a 401 is problem+json without the legacy member; its detail is the message")
    func unauthorized() async throws {
        try await Self.withOriginal { _, server in
            let api = APIClient(
                configuration: try .init(serverRoot: server.root), tokenProvider: StaticTokenProvider("bad"))
            let failure = await Self.failure { _ = try await api.getEventTypes() }
            #expect(failure?.status == 401 && failure?.problemType == "unauthorized" && failure?.message != nil)
        }
    }

    @Test("items 1, 19: unknown routes answer plain text; trailing slashes are redirected")
    func plainTextAndRedirects() async throws {
        try await Self.withOriginal { _, server in
            let unknown = try await RawHTTP.send(
                "GET", server.root.text + "/api/v1/insights", token: server.newUser().token)
            #expect(unknown.status == 404 && unknown.text == "404 page not found")
            let slash = try await RawHTTP.send("GET", server.root.text + "/api/v1/events/?limit=5")
            #expect(slash.status == 301 && slash.header("Location") == "/api/v1/events?limit=5")
            let post = try await RawHTTP.send("POST", server.root.text + "/api/v1/events/")
            #expect(post.status == 307)
        }
    }

    @Test("items 11–12: full-state PUT bodies keep display_order; what the original cannot clear stays set")
    func putsAgainstTheOriginal() async throws {
        try await Self.withOriginal { api, _ in
            let type = try await Self.type(api)
            let definition = try await api.createPropertyDefinitionWithIdempotency(
                CreatePropertyDefinitionRequest(
                    id: Self.newId(), eventTypeId: type.id, key: "mood", label: "Mood", propertyType: .select,
                    options: ["a", "b"], displayOrder: 4),
                idempotencyKey: "k")
            let updated = try await api.updatePropertyDefinitionWithIdempotency(
                id: definition.id,
                UpdatePropertyDefinitionRequest {
                    ($0.key, $0.label, $0.propertyType, $0.displayOrder) = ("mood", "Feeling", .select, 4)
                },
                idempotencyKey: "u")
            #expect(updated.label == "Feeling" && updated.displayOrder == 4)
            #expect(updated.options == ["a", "b"], "the original cannot clear options")
        }
    }
}
