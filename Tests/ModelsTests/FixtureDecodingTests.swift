import Foundation
import Models
import Testing

/// Every file in `Fixtures/api` decodes as the wire shape its name announces.
@Suite("API fixtures")
struct FixtureDecodingTests {
    @Test("every fixture file has a known shape and decodes", arguments: FixtureFiles.names)
    func decodes(name: String) throws {
        let decode = try #require(FixtureFiles.shape(of: name), "no shape registered for \(name)")
        _ = try decode(try FixtureFiles.data(name))
    }

    @Test("the fixture directory is found and populated")
    func directoryIsPopulated() {
        #expect(FixtureFiles.names.count >= 40)
    }

    @Test("a full event decodes every field; the embedded event type is optional extra")
    func fullEvent() throws {
        let event = try JSONCoding.decode(APIEvent.self, from: try FixtureFiles.data("event.full.json"))
        #expect(event.notes == "double shot" && event.externalId == "cal-77" && event.originalTitle == "Coffee w/ Ana")
        #expect(event.locationLatitude == 52.52 && event.locationLongitude == 13.405 && event.locationName == "Office")
        #expect(event.endDate == RFC3339.date(from: "2026-01-17T02:00:00.000Z"))
        #expect(event.properties["strength"] == PropertyValue(type: .number, value: 3))
        #expect(event.properties["when"]?.value == "2026-01-17T01:00:00Z")
        #expect(event.eventType?.name == "Coffee")
        #expect(event.isComplete)
    }

    @Test("omitted nulls read as nil and omitted properties as an empty map")
    func minimalEvent() throws {
        let event = try JSONCoding.decode(APIEvent.self, from: try FixtureFiles.data("event.minimal.json"))
        #expect(event.notes == nil && event.endDate == nil && event.geofenceId == nil && event.locationLatitude == nil)
        #expect(event.properties.isEmpty && event.eventType == nil && event.isAllDay && event.sourceType == .imported)
    }

    @Test("the original backend's whole-second, fractional, microsecond and offset times parse to milliseconds")
    func originalTimes() throws {
        let event = try JSONCoding.decode(APIEvent.self, from: try FixtureFiles.data("event.orig-times.json"))
        #expect(event.timestamp.millisecondsSince1970 == 1_768_614_292_000)
        #expect(event.endDate?.millisecondsSince1970 == 1_768_614_292_123)
        #expect(event.createdAt?.millisecondsSince1970 == 1_768_614_292_500)
        #expect(event.updatedAt?.millisecondsSince1970 == 1_768_614_292_123)
    }

    @Test("a partial HealthKit object decodes but is not complete")
    func partialHealthKitObject() throws {
        let event = try JSONCoding.decode(
            APIEvent.self, from: try FixtureFiles.data("event.orig-healthkit-partial.json"))
        #expect(!event.isComplete && event.timestamp.isZeroInstant && event.healthKitSampleId == "HK-SAMPLE-1")
    }

    @Test("S77 unknown source and property types read as manual and text; malformed property entries are dropped")
    func unknownEnums() throws {
        let event = try JSONCoding.decode(APIEvent.self, from: try FixtureFiles.data("event.unknown-enums.json"))
        #expect(event.sourceType == .manual)
        // S77: Unknown entity types and operations are skipped; unknown property_type reads as text; unknown…
        #expect(event.properties == ["x": PropertyValue(type: .text, value: [1, 2])])
    }

    @Test("geofence and property definition shapes, whole numbers and omitted options")
    func geofenceAndDefinitions() throws {
        let fence = try JSONCoding.decode(APIGeofence.self, from: try FixtureFiles.data("geofence.minimal.json"))
        #expect(fence.latitude == 0 && fence.radius == 100 && !fence.isActive && fence.eventTypeEntryId == nil)
        let number = try JSONCoding.decode(
            APIPropertyDefinition.self, from: try FixtureFiles.data("property-definition.json"))
        #expect(number.options.isEmpty && number.defaultValue == 2 && number.displayOrder == 1)
        let select = try JSONCoding.decode(
            APIPropertyDefinition.self, from: try FixtureFiles.data("property-definition.select.json"))
        #expect(select.options == ["good", "bad"] && select.defaultValue == "good" && select.propertyType == .select)
    }

    @Test("batch results: created rows, per-item errors with our extra members, and the original's 400 body")
    func batches() throws {
        let partial = try JSONCoding.decode(
            BatchCreateEventsResponse.self, from: try FixtureFiles.data("batch.partial.json"))
        #expect(partial.total == 3 && partial.success == 1 && partial.failed == 2 && partial.created.count == 1)
        #expect(partial.errors.map(\.index) == [1, 2])
        #expect(
            partial.errors[0].type == "conflict"
                && partial.errors[0].existingId == "0190f5c0-3f00-7a11-8b22-000000000099")
        let original = try JSONCoding.decode(
            BatchCreateEventsResponse.self, from: try FixtureFiles.data("batch.orig-all-failed.json"))
        #expect(original.created.isEmpty && original.errors.first?.type == nil && original.failed == 1)
    }

    @Test(
        "the fast feed decoder reads every change fixture exactly as Decodable does",
        arguments: ["changes.page.json", "changes.orig.json", "changes.empty.json"])
    func fastFeedDecoding(fixture: String) throws {
        let data = try FixtureFiles.data(fixture)
        #expect(try ChangeFeedResponse(jsonBytes: data) == JSONCoding.decode(ChangeFeedResponse.self, from: data))
    }

    @Test(
        "the fast feed decoder rejects what Decodable rejects",
        arguments: [
            #"[]"#, #"{"changes": []}"#, #"{"next_cursor": 1.5}"#, #"{"next_cursor": 1, "has_more": "yes"}"#,
            #"{"next_cursor": 1, "changes": [{"entity_type": "event"}]}"#, #"{"next_cursor": 1, "changes": {}}"#,
            #"{"next_cursor": 1, "changes": [{"id": 2, "operation": 7}]}"#,
        ])
    func fastFeedDecodingRejects(text: String) {
        let data = Data(text.utf8)
        #expect(throws: JSONParseError.self) { try ChangeFeedResponse(jsonBytes: data) }
        #expect(throws: (any Error).self) { try JSONCoding.decode(ChangeFeedResponse.self, from: data) }
    }

    @Test("change entries keep explicit nulls, tombstones and unknown kinds")
    func changeFeed() throws {
        let page = try JSONCoding.decode(ChangeFeedResponse.self, from: try FixtureFiles.data("changes.page.json"))
        #expect(page.nextCursor == 105 && page.hasMore && page.changes.map(\.id) == [101, 102, 105])
        let update = page.changes[1]
        #expect(update.data?["notes"] == .null && update.data?["properties"] == .object([:]))
        #expect(update.data?["healthkit_sample_id"] == nil, "absent stays absent")
        let tombstone = page.changes[2]
        #expect(tombstone.data == nil && tombstone.deletedAt != nil && tombstone.knownOperation == .delete)
        let original = try JSONCoding.decode(ChangeFeedResponse.self, from: try FixtureFiles.data("changes.orig.json"))
        #expect(original.changes[1].knownEntityType == nil && original.changes[2].knownOperation == nil)
        #expect(original.changes[0].data?["user_id"] == "")
        let latest = try JSONCoding.decode(FeedPosition.self, from: try FixtureFiles.data("latest-cursor.json"))
        #expect(latest.cursor == 4_000_000_000_123)
    }

    @Test(
        "error bodies are classified by content: problem+json, legacy {\"error\"}, or unstructured",
        arguments: [
            ("problem.validation.json", "validation", "2 fields are invalid"),
            ("problem.conflict.json", "conflict", "duplicate name: an event type named Coffee already exists"),
            ("problem.orig-without-error.json", "unauthorized", "invalid token"),
            ("problem.rate-limit.json", "rate_limit", "rate limit exceeded; retry in 7 s"),
            ("error.orig-legacy.json", nil, "event not found"),
            ("error.orig-rate-limit.json", nil, "rate limit exceeded"),
        ] as [(String, String?, String)])
    func errorBodies(name: String, code: String?, message: String) throws {
        let body = Array(try FixtureFiles.data(name))
        switch ProblemDetails.parse(body) {
        case .problem(let problem):
            #expect(code != nil && problem.problemCode == code && problem.message == message)
        case .legacy(let problem):
            #expect(code == nil && problem.message == message)
        case .unstructured:
            Issue.record("\(name) was not recognised")
        }
    }

    @Test("plain text, HTML, empty and non-object bodies are unstructured")
    func unstructuredBodies() {
        for body in ["404 page not found", "<html><body>Sign in</body></html>", "", "[1,2]", "{\"status\":500}"] {
            #expect(ProblemDetails.parse(Array(body.utf8)) == .unstructured, "\(body)")
        }
    }

    @Test("problem details keep field errors, existing_id and retry_after")
    func problemMembers() throws {
        let conflict = try JSONCoding.decode(ProblemDetails.self, from: try FixtureFiles.data("problem.conflict.json"))
        #expect(
            conflict.existingId == "0190f5c0-3f00-7a11-8b22-000000000001"
                && conflict.errors.first?.code == "duplicate_name")
        let limited = try JSONCoding.decode(ProblemDetails.self, from: try FixtureFiles.data("problem.rate-limit.json"))
        #expect(limited.retryAfter == 7 && limited.status == 429 && limited.requestId == "req-4")
    }
}
