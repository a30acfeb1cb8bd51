import Foundation
import Models
import Testing
import TrendyServerTesting

@Suite("Security: one user's data is invisible and untouchable to another")
struct SecurityTests {
    /// What the owner can see: every list, every entity and the whole change feed, as bytes.
    func ownerView(_ harness: ServerHarness, type: String, ids: [String: String]) async throws -> [String] {
        var view: [String] = []
        for path in [
            "/api/v1/event-types", "/api/v1/events?limit=1000", "/api/v1/geofences",
            "/api/v1/event-types/\(type)/properties", "/api/v1/changes?since=0&limit=1000",
            "/api/v1/changes/latest-cursor",
        ] + ids.map({ "/api/v1/\($0.key)/\($0.value)" }).sorted() {
            let response = try await harness.send("GET", path)
            view.append("\(path) \(response.status) \(response.text)")
        }
        return view
    }

    @Test("every route with another user's ids answers 404 or 409 and reads or changes nothing of the owner's")
    func everyRouteWithAnotherUsersIds() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType("Private")
            func create(_ path: String, _ json: String) async throws -> String {
                let response = try await harness.send("POST", path, json: json)
                guard response.status == 201, let id = response.json?["id"] as? String else {
                    throw ServerHarness.SetupError(message: "\(path): \(response.status) \(response.text)")
                }
                return id
            }
            let definition = try await create(
                "/api/v1/event-types/\(type)/properties",
                #"{"key":"mood","label":"Mood","property_type":"text"}"#)
            let fence = try await create(
                "/api/v1/geofences", #"{"name":"Home","latitude":1,"longitude":2,"radius":100}"#)
            let event = try await create(
                "/api/v1/events",
                #"{"id":"\#(ServerHarness.newId())","event_type_id":"\#(type)","timestamp":"2026-01-01T00:00:00Z","#
                    + #""geofence_id":"\#(fence)","properties":{"mood":{"type":"text","value":"calm"}}}"#)
            let ids = ["event-types": type, "property-definitions": definition, "geofences": fence, "events": event]
            let before = try await ownerView(harness, type: type, ids: ids)
            let stranger = harness.newUser().token

            var answers: [String: Int] = [:]
            func attempt(_ method: String, _ path: String, _ json: String? = nil) async throws {
                let response = try await harness.send(
                    method, path, json: json, token: stranger, headers: ["Idempotency-Key": ServerHarness.newId()])
                answers["\(method) \(path)"] = response.status
                #expect(
                    !response.text.contains("Private") && !response.text.contains("calm"),
                    "\(method) \(path) leaks none of the owner's data")
            }
            for (collection, id) in ids {
                try await attempt("GET", "/api/v1/\(collection)/\(id)")
                try await attempt("DELETE", "/api/v1/\(collection)/\(id)")
            }
            try await attempt("PUT", "/api/v1/event-types/\(type)", #"{"name":"Mine now"}"#)
            try await attempt("PUT", "/api/v1/property-definitions/\(definition)", #"{"label":"Mine now"}"#)
            try await attempt("PUT", "/api/v1/geofences/\(fence)", #"{"name":"Mine now"}"#)
            try await attempt("PUT", "/api/v1/events/\(event)", #"{"notes":"mine now"}"#)
            try await attempt("GET", "/api/v1/event-types/\(type)/properties")
            try await attempt(
                "POST", "/api/v1/event-types/\(type)/properties", #"{"key":"k","label":"K","property_type":"text"}"#)
            for (collection, id) in ids where collection != "property-definitions" {
                let body: String
                switch collection {
                case "event-types": body = #"{"id":"\#(id)","name":"Private","color":"black","icon":"x"}"#
                case "geofences": body = #"{"id":"\#(id)","name":"Home","latitude":1,"longitude":2,"radius":100}"#
                default: body = #"{"id":"\#(id)","event_type_id":"\#(type)","timestamp":"2026-01-01T00:00:00Z"}"#
                }
                try await attempt("POST", "/api/v1/\(collection)", body)
            }
            try await attempt(
                "POST", "/api/v1/events/batch",
                #"{"events":[{"id":"\#(event)","event_type_id":"\#(type)","timestamp":"2026-01-01T00:00:00Z"}]}"#)

            for (request, status) in answers.sorted(by: { $0.key < $1.key }) {
                let allowed: Set<Int> = request.hasPrefix("POST") ? [400, 404, 409, 207] : [404]
                #expect(allowed.contains(status), "\(request) answered \(status)")
            }
            #expect(answers.count == 18, "every route that takes an id was tried")
            let strangerLists = try await [
                "/api/v1/event-types", "/api/v1/events", "/api/v1/geofences", "/api/v1/changes?since=0&limit=1000",
            ].asyncMap { try await harness.send("GET", $0, token: stranger).text }
            #expect(
                strangerLists.allSatisfy { !$0.contains(type) && !$0.contains(event) && !$0.contains(fence) },
                "the stranger's own lists and feed show nothing of the owner's")
            #expect(try await ownerView(harness, type: type, ids: ids) == before, "the owner's data is unchanged")
        }
    }
}

extension Array {
    func asyncMap<Mapped>(_ transform: (Element) async throws -> Mapped) async rethrows -> [Mapped] {
        var mapped: [Mapped] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
