import Foundation
import Models
import TestSupport
import Testing

/// The field table is the one definition of the optional event fields: these checks fail when a stored property
/// is added without its entry, or when a type that embeds the details drops one on its way to JSON and back.
@Suite("Event details")
struct EventDetailsTests {
    /// Whether a reflected stored property holds nil.
    static func isNil(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    @Test("the table has one entry per stored property, each key once, and each entry reads and writes its own")
    func tableCoversEveryStoredProperty() {
        let properties = Mirror(reflecting: EventDetails()).children
        #expect(properties.count == EventDetails.fields.count)
        #expect(Set(EventDetails.keys).count == EventDetails.keys.count)

        for (number, field) in EventDetails.fields.enumerated() {
            var details = EventDetails()
            let value = Build.sample(of: field, number: number)
            details[field] = value
            #expect(details[field] == value, "\(field.key)")
            let set = Mirror(reflecting: details).children.filter { !Self.isNil($0.value) }
            #expect(set.count == 1, "\(field.key) sets exactly one stored property")
            details[field] = nil
            #expect(details.isEmpty, "\(field.key) clears")
        }
        #expect(Mirror(reflecting: Build.everyDetail).children.allSatisfy { !Self.isNil($0.value) })
    }

    @Test("a value of another kind changes nothing; ids are normalized lower-case and times to whole milliseconds")
    func kindsAndNormalization() throws {
        let time = try #require(EventDetails.fields.first { $0.kind == .time })
        let id = try #require(EventDetails.fields.first { $0.kind == .id })
        var details = EventDetails()
        details[time] = .text("not a time")
        #expect(details.isEmpty)

        details[id] = .text("0190F5C0-3F00-7A11-8B22-0000000000C8")
        details[time] = .time(Date(timeIntervalSince1970: 1.2345678))
        let normalized = details.normalized
        #expect(normalized[id] == .text("0190f5c0-3f00-7a11-8b22-0000000000c8"))
        #expect(normalized[time] == .time(Date(millisecondsSince1970: 1235)))
    }

    @Test("every field survives the JSON of Event, APIEvent and the create and update bodies")
    func everyTypeCarriesEveryField() throws {
        let details = Build.everyDetail
        let event = Build.event { $0.details = details }
        let api = APIEvent(
            id: event.id, userId: "user", eventTypeId: event.eventTypeId, timestamp: event.timestamp,
            details: details)
        let create = CreateEventRequest(event)
        let update = UpdateEventRequest(event)

        #expect(try JSONCoding.decode(Event.self, from: JSONCoding.encode(event)) == event)
        #expect(try JSONCoding.decode(APIEvent.self, from: JSONCoding.encode(api)) == api)
        #expect(try JSONCoding.decode(CreateEventRequest.self, from: JSONCoding.encode(create)) == create)
        #expect(try JSONCoding.decode(UpdateEventRequest.self, from: JSONCoding.encode(update)) == update)
        for field in EventDetails.fields {
            let member = details[field]?.json
            #expect(try JSONText.parse(JSONCoding.encode(event))[field.key] == member, "\(field.key)")
            #expect(try JSONText.parse(JSONCoding.encode(create))[field.key] == member, "\(field.key)")
        }
        #expect(Event.fieldNames.filter(EventDetails.keys.contains) == EventDetails.keys)
        let full = Build.event(notes: "n", properties: ["k": PropertyValue(type: .text, value: "v")]) {
            $0.details = details
        }
        let members = try JSONText.parse(JSONCoding.encode(full)).objectValue.map { Set($0.keys) }
        #expect(members == Set(Event.fieldNames), "fieldNames (the CSV columns) lists every member an event writes")
        #expect(Set(EventDetails.keys).isSubset(of: MutationPayload.createKeys(of: .event)))
    }

    @Test("a full-state update writes an unset clearable field as null and leaves the others out; a create omits both")
    func nilFields() throws {
        let event = Build.event()
        let update = try JSONText.parse(JSONCoding.encode(UpdateEventRequest(event)))
        let create = try JSONText.parse(JSONCoding.encode(CreateEventRequest(event)))
        for field in EventDetails.fields {
            #expect(update[field.key] == (field.clearable ? .null : nil), "\(field.key)")
            #expect(create[field.key] == nil, "\(field.key)")
        }
    }

    @Test("the change feed's clearable event keys are notes and the clearable fields")
    func clearableKeys() {
        let clearable = EventDetails.fields.filter(\.clearable).map(\.key)
        #expect(ChangeSnapshot.clearableKeys[.event] == ["notes"] + clearable)
        #expect(!clearable.contains("healthkit_sample_id") && clearable.contains("end_date"))
    }
}
