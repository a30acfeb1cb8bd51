import Foundation
import TestSupport
import Testing

@testable import Models

/// `APIEvent.page(from:)` reads a `GET /events` page without `Codable`; it must give exactly the events `Codable`
/// gives, for every field and every odd shape the lenient rules accept, and fail where `Codable` fails.
@Suite("Event pages read fast")
struct APIEventPageTests {
    static func both(_ text: String) throws -> (fast: [APIEvent], codable: [APIEvent]) {
        let bytes = Data(text.utf8)
        return (try APIEvent.page(from: bytes), try JSONCoding.decode([APIEvent].self, from: bytes))
    }

    @Test("every field, the embedded type, and every property shape read as Codable reads them")
    func sameAsCodable() throws {
        let type = APIEventType(id: Build.id(1), userId: "u", name: "Tea", color: "#fff", icon: "leaf")
        var full = APIEvent(
            id: Build.id(2), userId: "u", eventTypeId: type.id, timestamp: Build.instant, notes: "line\nbreak \"q\" é",
            isAllDay: true, sourceType: .imported, details: Build.everyDetail,
            properties: [
                "n": PropertyValue(type: .number, value: 1e-7), "s": PropertyValue(type: .select, value: "a"),
                "b": PropertyValue(type: .boolean, value: true), "x": PropertyValue(type: .text, value: .null),
                "o": PropertyValue(type: .text, value: ["nested": [1, "two", false]]),
            ],
            createdAt: Build.instant, updatedAt: Build.instant)
        full.eventType = type
        let minimal = APIEvent(id: Build.id(3), userId: "u", eventTypeId: type.id, timestamp: Build.instant)
        let encoded = String(decoding: try JSONCoding.encode([full, minimal]), as: UTF8.self)
        let (fast, codable) = try Self.both(encoded)
        #expect(fast == codable && fast.count == 2)
        #expect(fast.first?.eventType == type)

        // Shapes our encoder never writes but the lenient rules accept.
        let odd = #"""
            [{"id":"ABC","timestamp":"2026-01-17T02:44:52.5+01:00","end_date":"not a time","source_type":"telepathy",
              "properties":{"k":{"type":"hologram","value":3},"bad":5,"novalue":{"type":"text"}},
              "created_at":7,"event_type":{"id":"T","name":5}},
             {"id":"DEF","user_id":null,"notes":null,"is_all_day":null,"properties":[1,2],"geofence_id":"UPPER-Case",
              "event_type":{"id":"T2","user_id":"u","color":"red"}},
             {"id":"GHI","properties":null,"event_type":null,"location_latitude":1.5,"location_longitude":-0.25}]
            """#
        let (oddFast, oddCodable) = try Self.both(odd)
        #expect(oddFast == oddCodable)
        #expect(oddFast.first?.eventType == nil, "an embedded type that does not decode is dropped, as with try?")
        #expect(oddFast.dropFirst().first?.geofenceId == "UPPER-Case", "ids keep their case, as Codable reads them")
    }

    @Test("events embedding the same type share one copy of it; another type, or the same id changed, reads anew")
    func embeddedTypesShared() throws {
        let tea = APIEventType(id: Build.id(1), userId: "u", name: "Tea", color: "#fff", icon: "leaf")
        var renamed = tea
        renamed.name = "Green tea"
        let coffee = APIEventType(id: Build.id(9), userId: "u", name: "Coffee", color: "#000", icon: "cup")
        let embedded = [tea, tea, coffee, tea, renamed, renamed, nil]
        let page = embedded.enumerated().map { index, type in
            var event = APIEvent(
                id: Build.id(20 + index), userId: "u", eventTypeId: type?.id ?? tea.id,
                timestamp: Build.instant.addingTimeInterval(Double(index)))
            event.eventType = type
            return event
        }
        let (fast, codable) = try Self.both(String(decoding: try JSONCoding.encode(page), as: UTF8.self))
        #expect(fast == codable && fast.map(\.eventType) == embedded)
        #expect(fast[0].embeddedType === fast[1].embeddedType, "a repeated type is one copy")
        #expect(fast[4].embeddedType === fast[5].embeddedType)
        #expect(fast[1].embeddedType === fast[3].embeddedType, "another type between them changes nothing")
        #expect(fast[3].embeddedType !== fast[4].embeddedType && fast[2].embeddedType !== fast[0].embeddedType)
    }

    @Test("the fixture pages read alike")
    func fixtures() throws {
        let text = String(decoding: try FixtureFiles.data("events.list.json"), as: UTF8.self)
        let (fast, codable) = try Self.both(text)
        #expect(fast == codable && !fast.isEmpty)
    }

    @Test("a member of the wrong type fails the page, as Codable does")
    func malformedFails() {
        for text in [
            #"[{"id":"A","notes":5}]"#, #"[{"id":5}]"#, #"[{"id":"A","is_all_day":"yes"}]"#,
            #"[{"id":"A","location_latitude":"north"}]"#, #"{"id":"A"}"#, "not json",
        ] {
            #expect(throws: (any Error).self, "\(text)") { try APIEvent.page(from: Data(text.utf8)) }
            #expect(throws: (any Error).self, "\(text)") {
                try JSONCoding.decode([APIEvent].self, from: Data(text.utf8))
            }
        }
    }
}
