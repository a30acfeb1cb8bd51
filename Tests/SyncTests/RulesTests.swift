import Foundation
import Hashing
import Models
import Protocols
import TestSupport
import Testing

@testable import Sync

@Suite("Rules: classification, breaker, application, plan")
struct RulesTests {
    @Test(
        "sync-engine §4.5 push errors classify by the first matching row",
        arguments: [
            (NetworkError.cancelled, MutationOperation.create, PushErrorClass.cancelled),
            (.transport("refused"), .update, .transport("refused")),
            (http(401), .delete, .auth),
            (http(429, retryAfter: 7), .create, .rateLimited(retryAfter: 7)),
            (http(409, "idempotency_in_flight", message: "still running"), .update, .inFlight),
            (http(404), .delete, .alreadyGone),
            (http(410), .delete, .alreadyGone),
            (http(500, message: "event Not Found"), .delete, .alreadyGone),
            (
                http(409, "conflict", message: "duplicate name", existingId: "ABC"), .create,
                .duplicate(existingId: "abc", message: "duplicate name")
            ),
            (http(500, message: "pq: 23505"), .update, .duplicate(existingId: nil, message: "pq: 23505")),
            (http(400, message: "Unique violation"), .create, .duplicate(existingId: nil, message: "Unique violation")),
            (http(404), .update, .gone),
            (http(502, message: "event type not found"), .update, .gone),
            (http(404), .create, .failure("HTTP 404")),
            (http(422, "validation", message: "bad"), .create, .failure("HTTP 422: bad")),
            (NetworkError.invalidResponse, .create, .failure("the server's answer was not an HTTP response")),
            (http(503), .create, .failure("HTTP 503")),
            (
                NetworkError.decoding(status: 200, message: "html"), .update,
                .failure("unexpected response body (HTTP 200): html")
            ),
        ] as [(NetworkError, MutationOperation, PushErrorClass)])
    func classification(error: NetworkError, operation: MutationOperation, expected: PushErrorClass) {
        #expect(PushErrorClass.classify(error, operation: operation) == expected)
    }

    @Test(
        "sync-engine §4.5 §4.6 what each class of failure does to the mutation, the round and the breaker",
        arguments: [
            (PushErrorClass.cancelled, MutationOperation.create, PushOutcome.stop(.cancelled)),
            (.transport("refused"), .update, .stop(.offline("refused"))),
            (.auth, .delete, .stop(.authRequired)),
            (.feedWentBack, .update, .feedWentBack),
            (.rateLimited(retryAfter: 7), .create, .rateLimited(retryAfter: 7)),
            (.inFlight, .update, .resolved(.untouched, .none)),
            (.alreadyGone, .delete, .resolved(.completed, .reset(success: false))),
            (.gone, .update, .resolved(.deadLetter("not found on server"), .reset(success: false))),
            (.failure("HTTP 503"), .create, .resolved(.counted("HTTP 503"), .reset(success: false))),
            (.duplicate(existingId: "a", message: "taken"), .delete, .resolved(.completed, .reset(success: false))),
            (
                .duplicate(existingId: "a", message: "taken"), .update,
                .resolved(.conflict("conflict: taken"), .reset(success: false))
            ),
            (
                .duplicate(existingId: "a", message: "taken"), .create,
                .confirmDuplicate(existingId: "a", message: "taken")
            ),
        ] as [(PushErrorClass, MutationOperation, PushOutcome)])
    func pushOutcome(failure: PushErrorClass, operation: MutationOperation, expected: PushOutcome) {
        #expect(PushOutcome.of(failure, operation: operation) == expected)
    }

    @Test(
        "sync-engine §4.6 R5 a duplicate create: the same entity completes and is read back; another is a dead letter naming it"
    )
    func duplicateCreate() {
        let id = "0190f5c0-3f00-7a11-8b22-0000000000aa"
        #expect(
            PushOutcome.duplicateCreate(of: id.uppercased(), existingId: id, message: "m") == .completedOwed(.duplicate)
        )
        let other = PushOutcome.duplicateCreate(of: id, existingId: "other", message: "name taken")
        #expect(other == .deadLetter("conflict: name taken\(PendingMutation.heldOnServerMarker)other"))
        #expect(PushOutcome.duplicateCreate(of: id, existingId: nil, message: "m") == nil, "the server is asked")
        #expect(PushOutcome.duplicateCreate(exists: true, message: "m") == .completedOwed(.duplicate))
        #expect(PushOutcome.duplicateCreate(exists: false, message: "m") == .deadLetter("conflict: m"))
    }

    @Test("S57 successive trips without a 2xx back off 30, 60, 120, 240, 300, 300 s")
    func backoffSequence() {
        var state = EngineState()
        let now = Date(timeIntervalSince1970: 0)
        let backoffs = (0..<6).map { _ in CircuitBreaker.trip(&state, now: now, configuration: .standard()) }
        // S57: Successive trips without a 2xx in between, and without Retry-After, back off 30, 60, 120, 240, 300…
        #expect(backoffs == [30, 60, 120, 240, 300, 300])
        #expect(state.breakerMultiplier == 10 && state.breakerConsecutive429 == 0)
    }

    @Test("S58 a trip waits at least the largest Retry-After counted, capped")
    func retryAfterHint() throws {
        var state = EngineState()
        CircuitBreaker.count429(&state, retryAfter: 45)
        CircuitBreaker.count429(&state, retryAfter: 12)
        #expect(state.breakerRetryAfterHint == 45 && state.breakerConsecutive429 == 2)
        #expect(CircuitBreaker.trip(&state, now: Date(), configuration: .standard()) == 45)
        var capped = EngineState(breakerRetryAfterHint: 9000)
        let configuration = try SyncConfiguration(retryAfterCap: 600)
        // S58: A trip's backoff is at least the largest Retry-After counted since the last counter reset (capped at…
        #expect(CircuitBreaker.trip(&capped, now: Date(), configuration: configuration) == 600)
    }

    @Test(
        "S59 S65 a reset clears counter, hint and backoff; the multiplier resets only on a 2xx and survives a manual reset"
    )
    func resets() {
        var state = EngineState(
            breakerConsecutive429: 2, breakerBackoffUntil: Date(), breakerMultiplier: 4, breakerRetryAfterHint: 9)
        CircuitBreaker.reset(&state, success: false)
        #expect(
            state.breakerConsecutive429 == 0 && state.breakerRetryAfterHint == nil && state.breakerBackoffUntil == nil,
            "S59 any counted answer clears the counter, hint and backoff")
        #expect(state.breakerMultiplier == 4, "S59 a non-2xx answer keeps the multiplier")
        CircuitBreaker.reset(&state, success: true)
        #expect(state.breakerMultiplier == 1, "S59 a 2xx resets the multiplier")
        var manual = EngineState(
            breakerConsecutive429: 1, breakerBackoffUntil: Date(), breakerMultiplier: 8, breakerRetryAfterHint: 3,
            quietUntil: Date())
        CircuitBreaker.manualReset(&manual)
        #expect(
            manual.quietUntil == nil && manual.breakerBackoffUntil == nil && manual.breakerConsecutive429 == 0
                && manual.breakerRetryAfterHint == nil,
            "S65 counter, hint, backoff and quiet period cleared")
        #expect(manual.breakerMultiplier == 8, "S65 the multiplier is kept")
    }

    @Test("the breaker is closed, open until its backoff ends, then half-open; a quiet period only ever grows")
    func breakerStatus() {
        let now = Date(timeIntervalSince1970: 1000)
        #expect(CircuitBreaker.status(EngineState(), now: now) == .closed)
        let open = EngineState(breakerBackoffUntil: now.addingTimeInterval(5))
        #expect(CircuitBreaker.status(open, now: now) == .open(until: now.addingTimeInterval(5)))
        #expect(CircuitBreaker.status(open, now: now.addingTimeInterval(5)) == .halfOpen)
        var quiet = EngineState()
        CircuitBreaker.beginQuietPeriod(&quiet, retryAfter: 60, now: now, cap: 3600)
        CircuitBreaker.beginQuietPeriod(&quiet, retryAfter: 10, now: now, cap: 3600)
        #expect(quiet.quietUntil == now.addingTimeInterval(60))
        CircuitBreaker.beginQuietPeriod(&quiet, retryAfter: 99_999, now: now, cap: 3600)
        #expect(quiet.quietUntil == now.addingTimeInterval(3600))
    }

    @Test("S75 only present keys change a row; null clears only clearable fields; properties {} clears the map")
    func applyingEvents() {
        var event = Event(
            id: "e", eventTypeId: "t", timestamp: Date(millisecondsSince1970: 0), notes: "n",
            details: EventDetails(externalId: "x", locationLatitude: 1, locationLongitude: 2, healthKitSampleId: "hk"),
            properties: ["a": PropertyValue(type: .text, value: "1")])
        ChangeApplication.apply(
            [
                "notes": .null, "healthkit_sample_id": .null, "timestamp": "2026-01-17T01:44:52.5Z",
                "location_latitude": .null, "location_longitude": 5, "event_type_id": "T2", "is_all_day": "yes",
                "properties": .object([:]),
            ], to: &event)
        #expect(event.notes == nil && event.healthKitSampleId == "hk" && event.externalId == "x")
        #expect(event.timestamp == Date(millisecondsSince1970: 1_768_614_292_500) && event.eventTypeId == "t2")
        #expect(event.locationLatitude == 1 && event.locationLongitude == 2, "a half pair changes nothing")
        // S75: Only present keys are applied; an absent key never changes a field; null clears only the clearable…
        #expect(!event.isAllDay && event.properties.isEmpty)
        ChangeApplication.apply(
            ["location_latitude": .null, "location_longitude": .null, "source_type": "psychic"], to: &event)
        #expect(event.locationLatitude == nil && event.sourceType == .manual)
    }

    @Test(
        "S75 every optional event field: a value of its kind sets it, null clears it when clearable, a wrong kind is ignored"
    )
    func applyingEveryDetail() {
        let full = Build.everyDetail
        let coordinates = EventDetails.fields.filter(\.kind.isCoordinate)
        var event = Build.event()
        ChangeApplication.apply(
            Dictionary(
                uniqueKeysWithValues: EventDetails.fields.compactMap { field in
                    full[field].map { (field.key, $0.json) }
                }), to: &event)
        #expect(event.details == full, "every field is set from its JSON")

        ChangeApplication.apply(
            Dictionary(uniqueKeysWithValues: EventDetails.fields.map { ($0.key, JSONValue.bool(true)) }), to: &event)
        #expect(event.details == full, "a member of the wrong JSON type changes nothing")

        ChangeApplication.apply(
            Dictionary(uniqueKeysWithValues: EventDetails.fields.map { ($0.key, JSONValue.null) }), to: &event)
        for field in EventDetails.fields {
            #expect((event.details[field] == nil) == field.clearable, "\(field.key): null clears only the clearable")
        }
        #expect(coordinates.count == 2 && coordinates.allSatisfy { event.details[$0] == nil })
    }

    @Test("S75 S77 definitions, geofences and types: clear rules, string-only options, unknown property types")
    func applyingOthers() {
        var definition = PropertyDefinition(
            id: "p", eventTypeId: "t", key: "k", label: "L", options: ["a"], defaultValue: 1, displayOrder: 3,
            createdAt: Date(), updatedAt: Date())
        ChangeApplication.apply(
            [
                "options": .array(["x", 5, "y"]), "default_value": .null, "display_order": 2.5,
                "property_type": "quantum",
            ], to: &definition)
        #expect(definition.options == ["x", "y"] && definition.defaultValue == nil)
        // S75: Only present keys are applied; an absent key never changes a field; null clears only the clearable…
        #expect(definition.displayOrder == 3 && definition.propertyType == .text)
        ChangeApplication.apply(["options": .null, "default_value": false], to: &definition)
        #expect(definition.options.isEmpty && definition.defaultValue == false)
        var fence = Geofence(id: "g", name: "G", latitude: 1, longitude: 1, eventTypeEntryId: "t", createdAt: Date())
        ChangeApplication.apply(["event_type_entry_id": .null, "name": .null, "radius": 120], to: &fence)
        #expect(fence.eventTypeEntryId == nil && fence.name == "G" && fence.radius == 120)
        var type = EventType(id: "t", name: "A", createdAt: Date())
        ChangeApplication.apply(["name": "B", "color": .null], to: &type)
        #expect(type.name == "B" && type.color == EventType.defaultColor)
    }

    @Test("S76 entries with an absent or empty user_id, an empty event_type_id or a year-0001 timestamp are partial")
    func partialEntries() {
        #expect(ChangeApplication.isPartial([:], type: .event))
        #expect(ChangeApplication.isPartial(["user_id": ""], type: .eventType))
        #expect(ChangeApplication.isPartial(["user_id": "u", "event_type_id": ""], type: .event))
        #expect(ChangeApplication.isPartial(["user_id": "u", "timestamp": "0001-01-01T00:00:00Z"], type: .event))
        #expect(!ChangeApplication.isPartial(["user_id": "u", "timestamp": "0001-01-01T00:00:00Z"], type: .eventType))
        // S76: Entries with absent or empty user_id, empty event_type_id, or an event timestamp of year 0001 are…
        #expect(
            !ChangeApplication.canCreate(["user_id": "u", "timestamp": "nope", "event_type_id": "t"], type: .event))
        #expect(!ChangeApplication.canCreate(["user_id": "u"], type: .propertyDefinition))
    }

    @Test("S28 the push order: type, geofence, definition, event creates; updates in queue order; deletes by kind")
    func phases() {
        func row(_ operation: MutationOperation, _ type: MutationEntityType, _ id: String) -> PendingMutation {
            PendingMutation.new(
                entityType: type, operation: operation, entityId: id, payload: Data("{}".utf8), at: Date())
        }
        let set = [
            row(.delete, .eventType, "d1"), row(.update, .event, "u1"), row(.create, .event, "c1"),
            row(.delete, .event, "d2"), row(.create, .propertyDefinition, "c2"), row(.update, .geofence, "u2"),
            row(.create, .geofence, "c3"), row(.create, .eventType, "c4"), row(.delete, .geofence, "d3"),
            row(.delete, .propertyDefinition, "d4"),
        ]
        let order = PushPlan.phases(of: set).flatMap { $0.1.map(\.entityId) }
        // S28: Push order: event-type creates, geofence creates, property-definition creates, event creates…
        #expect(order == ["c4", "c3", "c2", "c1", "u1", "u2", "d2", "d4", "d3", "d1"])
    }

    @Test("S31 a batch key is the SHA-256 of client_request_id:attempts lines")
    func batchKey() {
        let hashing = CryptoSHA256()
        var first = PendingMutation.new(entityType: .event, operation: .create, entityId: "a", payload: nil, at: Date())
        first.clientRequestId = "k1"
        var second = first
        second.clientRequestId = "k2"
        second.attempts = 2
        // S31: A batch key is the SHA-256 (lowercase hex) of the members' client_request_id:attempts lines; an…
        #expect(PushPlan.batchKey([first, second], hashing: hashing) == hashing.hexDigest(of: "k1:0\nk2:2"))
        first.attempts = 1
        #expect(PushPlan.batchKey([first, second], hashing: hashing) != hashing.hexDigest(of: "k1:0\nk2:2"))
    }

    @Test("parents named by payloads: events name their type and geofence; geofences their entry and exit types")
    func parents() {
        let event = PendingMutation.new(
            entityType: .event, operation: .create, entityId: "e",
            payload: Data(#"{"event_type_id":"T","geofence_id":"G"}"#.utf8), at: Date())
        #expect(PushPlan.parentIds(of: event) == ["t", "g"])
        let fence = PendingMutation.new(
            entityType: .geofence, operation: .update, entityId: "g",
            payload: Data(#"{"event_type_entry_id":"a","event_type_exit_id":null}"#.utf8), at: Date())
        #expect(PushPlan.parentIds(of: fence) == ["a"])
    }

    @Test("configuration values outside sync-engine §7 ranges are refused")
    func configurationRanges() {
        #expect(throws: SyncConfigurationError.self) { try SyncConfiguration(batchSize: 501) }
        #expect(throws: SyncConfigurationError.self) { try SyncConfiguration(baseBackoff: 60, maxBackoff: 30) }
        #expect(throws: SyncConfigurationError.self) { try SyncConfiguration(historyLimit: 0) }
        #expect(throws: SyncConfigurationError.self) { try SyncConfiguration(geofenceRefreshInterval: -1) }
        #expect(throws: SyncConfigurationError.self) { try SyncConfiguration(geofenceRefreshInterval: 604_801) }
        #expect(SyncConfiguration.standard().batchSize == 50 && SyncConfiguration.throughput().batchSize == 500)
        // S78: .standard refreshes geofences every round, as the original app; .throughput at most hourly.
        #expect(SyncConfiguration.standard().geofenceRefreshInterval == 0)
        #expect(SyncConfiguration.throughput().geofenceRefreshInterval == 3600)
    }
    @Test(
        "R15 a pull passes over a version held acknowledged after its start when a later one comes before its echo, on any page; an echo, an older version or a version from before the start does not; an older version before the echo is held back"
    )
    func passedOverVersions() {
        let start = Date(millisecondsSince1970: 1_767_225_600_000)
        func at(_ seconds: Int) -> Date { start.addingTimeInterval(Double(seconds)) }
        func entry(_ id: String, _ seconds: Int) -> ChangeEntry {
            let time = RFC3339.string(from: at(seconds))
            return ChangeEntry(
                id: Int64(seconds), entityType: "event_type", operation: "update", entityId: id, userId: "u",
                data: .object(["id": .string(id), "updated_at": .string(time)]), createdAt: at(seconds))
        }
        func held(_ id: String, _ seconds: Int) -> AcknowledgedVersion {
            AcknowledgedVersion(entityType: .eventType, id: id, acknowledgedAt: at(seconds), deleted: false)
        }
        var versions = ["lost": held("lost", 10), "echoed": held("echoed", 10), "old": held("old", -5)]
        var settled: Set<String> = []
        let position = FeedPosition(cursor: 1, createdAt: start)
        // First page: the echo of one held version, then a later version of it; a later version of one held from
        // before the pull's start; an older version of one whose echo has not come; an entity held at no version.
        let first = PassedOverVersion.judge(
            [entry("echoed", 10), entry("echoed", 20), entry("old", 30), entry("lost", 5), entry("new", 35)],
            held: versions, pullingFrom: position, settled: &settled)
        #expect(
            first.passedOver.isEmpty,
            "an echo first, an older version, a version from before the start: nothing passed over")
        #expect(first.older == [5], "the older version of the one whose echo has not come is not written")
        // Second page: the pull's own first page recorded `new` at 35; its next version is no loss. A later version
        // of the one whose echo never came is.
        versions["new"] = held("new", 35)
        let second = PassedOverVersion.judge(
            [entry("echoed", 40), entry("new", 45), entry("lost", 50), entry("lost", 60)], held: versions,
            pullingFrom: position, settled: &settled)
        #expect(second.passedOver.map(\.id) == ["lost"], "named once")
        #expect(second.older.isEmpty)
        // A position without its time tells nothing.
        var none: Set<String> = []
        #expect(
            PassedOverVersion.judge(
                [entry("lost", 5), entry("lost", 50)], held: versions, pullingFrom: FeedPosition(cursor: 1),
                settled: &none
            ).passedOver.isEmpty)
    }

    @Test(
        "R15 api-v1 §15.1 a held delete is passed over by a later version of the incarnation it ended; an earlier one is held back, a re-creation after it or the delete's echo is not"
    )
    func passedOverDeletes() {
        let start = Date(millisecondsSince1970: 1_767_225_600_000)
        func at(_ seconds: Int) -> Date { start.addingTimeInterval(Double(seconds)) }
        func entry(_ change: Int64, _ id: String, updated: Int, created: Int?) -> ChangeEntry {
            var data: [String: JSONValue] = [
                "id": .string(id), "updated_at": .string(RFC3339.string(from: at(updated))),
            ]
            if let created { data["created_at"] = .string(RFC3339.string(from: at(created))) }
            return ChangeEntry(
                id: change, entityType: "event", operation: "create", entityId: id, userId: "u", data: .object(data),
                createdAt: at(updated))
        }
        func deleted(_ id: String, _ seconds: Int) -> AcknowledgedVersion {
            AcknowledgedVersion(entityType: .event, id: id, acknowledgedAt: at(seconds), deleted: true)
        }
        let held = [
            "resent": deleted("resent", 20), "recreated": deleted("recreated", 20), "before": deleted("before", -5),
            "undated": deleted("undated", 20),
        ]
        var settled: Set<String> = []
        let judgment = PassedOverVersion.judge(
            [
                // An edit of the incarnation the delete ended, from before the delete: its echo may follow.
                entry(1, "resent", updated: 5, created: 2),
                // A create sent again, dated when it was queued (before the delete), taken after it.
                entry(2, "resent", updated: 30, created: 2),
                entry(3, "recreated", updated: 30, created: 25),
                entry(4, "before", updated: 30, created: -10),
                entry(5, "undated", updated: 30, created: nil),
            ],
            held: held, pullingFrom: FeedPosition(cursor: 1, createdAt: start), settled: &settled)
        #expect(judgment.passedOver.map(\.id) == ["resent"] && judgment.passedOver.map(\.type) == [.event])
        #expect(judgment.older == [1], "an edit from before the delete does not bring the row back")
        #expect(settled == ["resent", "recreated", "before", "undated"])
        // The delete's own echo settles it: what follows is written as it comes.
        var echoed: Set<String> = []
        let echo = ChangeEntry(
            id: 6, entityType: "event", operation: "delete", entityId: "resent", userId: "u", data: nil,
            deletedAt: at(20), createdAt: at(20))
        #expect(
            PassedOverVersion.judge(
                [echo, entry(7, "resent", updated: 30, created: 2)], held: held,
                pullingFrom: FeedPosition(cursor: 1, createdAt: start), settled: &echoed
            ).passedOver.isEmpty)
    }

    @Test(
        "R15 a pull that reached the feed's head names each version held acknowledged after its start that it did not settle; a settled one, a delete or one from before the start it does not"
    )
    func versionsMissingAtTheHead() {
        let start = Date(millisecondsSince1970: 1_767_225_600_000)
        func held(_ id: String, _ seconds: Int, deleted: Bool = false) -> AcknowledgedVersion {
            AcknowledgedVersion(
                entityType: .event, id: id, acknowledgedAt: start.addingTimeInterval(Double(seconds)), deleted: deleted)
        }
        let versions = [
            held("OLD", -5), held("at-start", 0), held("echoed", 10), held("gone", 12, deleted: true),
            held("LOST", 20),
        ]
        let missing = PassedOverVersion.missingAtTheHead(
            held: versions, pullingFrom: FeedPosition(cursor: 1, createdAt: start), settled: ["echoed"])
        #expect(missing.map(\.id) == ["lost"] && missing.map(\.type) == [.event])
        #expect(
            PassedOverVersion.missingAtTheHead(held: versions, pullingFrom: FeedPosition(cursor: 1), settled: [])
                .isEmpty, "a position without its time tells nothing")
    }
}
