import Foundation
import Models
import Testing
import TrendyServer
import TrendyServerTesting

/// `POST /events/batch` reads what its items need in three statements for the whole batch (`BatchLookups`); each
/// item must still be answered exactly as the same item sent alone at that point would be (api-v1 §5.3.4–5.3.5).
@Suite("Batch creates")
struct BatchCreateTests {
    @Test("each item of a batch is answered as the same items sent one at a time: repeats, clashes, taken ids")
    func itemsAnswerAsSingles() async throws {
        let type = ServerHarness.newId()
        let stored = ServerHarness.newId()
        let foreign = ServerHarness.newId()
        let (a, b, c, d, e) = (
            ServerHarness.newId(), ServerHarness.newId(), ServerHarness.newId(), ServerHarness.newId(),
            ServerHarness.newId()
        )
        func item(_ id: String, _ time: String, type typeId: String = type, notes: String? = nil) -> String {
            let note = notes.map { #","notes":"\#($0)""# } ?? ""
            return #"{"id":"\#(id)","event_type_id":"\#(typeId)","timestamp":"\#(time)"\#(note)}"#
        }
        let (t0, t1, t2, t3) = (
            "2026-03-01T08:00:00.000Z", "2026-03-01T09:00:00.000Z", "2026-03-01T10:00:00.000Z",
            "2026-03-01T11:00:00.000Z"
        )
        let items = [
            item(a, t1),  // new
            item(a, t1),  // the same again: answered with the row, nothing written
            item(a, t2),  // the same id, other fields: duplicate_id
            item(b, t1),  // a's slot: duplicate_timestamp naming a
            item(stored, t0),  // a row stored before the batch, sent again unchanged
            item(c, t0),  // the stored row's slot
            item(foreign, t3),  // another user's id: id_taken
            item(d, t3),  // new, at the slot the refused foreign item named
            item(e, t2, type: ServerHarness.newId()),  // an unknown type
            item(e, t2, notes: "second try"),  // the same id, now valid
        ]

        /// Prepares a server: the type, `stored` at t0, and another user's event `foreign`.
        func prepare(_ harness: ServerHarness) async throws {
            _ = try await harness.eventType(id: type)
            #expect(try await harness.send("POST", "/api/v1/events", json: item(stored, t0)).status == 201)
            let other = ServerHarness.token(for: UUID().uuidString.lowercased(), expiresIn: 3600)
            let otherType = ServerHarness.newId()
            _ = try await harness.send(
                "POST", "/api/v1/event-types", json: #"{"id":"\#(otherType)","name":"T","color":"c","icon":"i"}"#,
                token: other)
            let created = try await harness.send(
                "POST", "/api/v1/events", json: item(foreign, t0, type: otherType), token: other)
            #expect(created.status == 201)
        }

        var batchAnswers: [String] = []
        var batchFeed = 0
        try await ServerHarness.with { harness in
            try await prepare(harness)
            let response = try await harness.send(
                "POST", "/api/v1/events/batch", json: #"{"events":[\#(items.joined(separator: ","))]}"#)
            #expect(response.status == 207)
            let created = (response.json?["created"] as? [[String: Any]]) ?? []
            let errors = (response.json?["errors"] as? [[String: Any]]) ?? []
            var byIndex: [Int: String] = [:]
            for error in errors {
                guard let index = error["index"] as? Int else { continue }
                byIndex[index] = "refused \(error["code"] as? String ?? "-") \(error["existing_id"] as? String ?? "-")"
            }
            var next = created.makeIterator()
            for index in items.indices {
                if let refusal = byIndex[index] {
                    batchAnswers.append(refusal)
                } else {
                    let row = next.next()
                    batchAnswers.append("ok \(row?["id"] as? String ?? "?") \(row?["notes"] as? String ?? "-")")
                }
            }
            batchFeed = try await harness.feedCount()
        }

        var singleAnswers: [String] = []
        var singleFeed = 0
        try await ServerHarness.with { harness in
            try await prepare(harness)
            for body in items {
                let response = try await harness.send("POST", "/api/v1/events", json: body)
                if (200..<300).contains(response.status) {
                    singleAnswers.append(
                        "ok \(response.json?["id"] as? String ?? "?") \(response.json?["notes"] as? String ?? "-")")
                } else {
                    let errors = response.json?["errors"] as? [[String: Any]]
                    let code = response.json?["code"] as? String ?? errors?.first?["code"] as? String ?? "-"
                    singleAnswers.append("refused \(code) \(response.json?["existing_id"] as? String ?? "-")")
                }
            }
            singleFeed = try await harness.feedCount()
        }

        #expect(batchAnswers == singleAnswers, "batch: \(batchAnswers)\nsingles: \(singleAnswers)")
        #expect(batchAnswers[0] == "ok \(a) -" && batchAnswers[1] == "ok \(a) -")
        #expect(batchAnswers[2] == "refused duplicate_id \(a)")
        #expect(batchAnswers[3] == "refused duplicate_timestamp \(a)")
        #expect(batchAnswers[4] == "ok \(stored) -" && batchAnswers[5] == "refused duplicate_timestamp \(stored)")
        #expect(batchAnswers[6].hasPrefix("refused id_taken") && batchAnswers[7] == "ok \(d) -")
        #expect(batchAnswers[8] == "refused unknown_reference -" && batchAnswers[9] == "ok \(e) second try")
        #expect(batchFeed == singleFeed, "the same rows were written")
    }

    @Test("what a batch answers for a created event is what is stored: GET returns the same fields")
    func answersAreStored() async throws {
        try await ServerHarness.with { harness in
            let type = try await harness.eventType()
            let id = ServerHarness.newId()
            let item =
                #"{"id":"\#(id)","event_type_id":"\#(type)","timestamp":"2026-03-01T08:00:00.250Z","notes":"x \u00e9","#
                + #""is_all_day":true,"end_date":"2026-03-01T09:00:00Z","location_latitude":52.52,"#
                + #""location_longitude":13.405,"location_name":"Berlin","properties":{"mood":{"type":"text","#
                + #""value":"ok"},"count":{"type":"number","value":2.5}}}"#
            let batch = try await harness.send("POST", "/api/v1/events/batch", json: #"{"events":[\#(item)]}"#)
            #expect(batch.status == 201)
            let created = try #require((batch.json?["created"] as? [[String: Any]])?.first)
            var stored = try #require(try await harness.send("GET", "/api/v1/events/\(id)").json)
            stored["event_type"] = nil
            #expect(NSDictionary(dictionary: created) == NSDictionary(dictionary: stored), "\(created)\n\(stored)")
            #expect((created["properties"] as? [String: Any])?.count == 2 && created["created_at"] != nil)
        }
    }
}
