import Foundation
import Models
import Testing

@Suite("Mutation payloads")
struct MutationPayloadTests {
    func json(_ data: Data) throws -> JSONValue { try JSONCoding.decode(JSONValue.self, from: data) }

    @Test("the fold overlay sets values, removes nulled keys and keeps the create's id")
    func foldOverlay() throws {
        let create = try MutationPayload.create(RequestEncodingTests.event)
        var edited = RequestEncodingTests.event
        edited.notes = nil
        edited.locationName = "Desk"
        edited.properties = [:]
        let folded = try json(
            try MutationPayload.fold(create: create, update: try MutationPayload.update(edited), of: .event))
        #expect(folded["notes"] == nil && folded["location_name"] == "Desk" && folded["properties"] == .object([:]))
        #expect(folded["id"] == .string(RequestEncodingTests.eventId))
        #expect(folded["end_date"] == nil, "a null update value never adds a key")
    }

    @Test("a folded geofence drops ios_region_identifier; a folded definition keeps its event_type_id")
    func foldShapes() throws {
        let fence = RequestEncodingTests.geofence
        let foldedFence = try json(
            try MutationPayload.fold(
                create: try MutationPayload.create(fence), update: try MutationPayload.update(fence), of: .geofence))
        #expect(foldedFence["ios_region_identifier"] == nil && foldedFence["name"] == "Office")
        let definition = RequestEncodingTests.selectDefinition
        let update = Data(#"{"event_type_id":"another","key":"mood2","options":[],"default_value":null}"#.utf8)
        let folded = try MutationPayload.fold(
            create: try MutationPayload.create(definition), update: update, of: .propertyDefinition)
        let foldedJSON = try json(folded)
        #expect(foldedJSON["event_type_id"] == .string(RequestEncodingTests.typeId) && foldedJSON["key"] == "mood2")
        #expect(foldedJSON["options"] == nil, "an empty options array is omitted from a create body")
        #expect(foldedJSON["default_value"] == nil)
    }

    @Test("a fold of malformed JSON throws instead of producing a payload")
    func foldRejectsMalformed() throws {
        let create = try MutationPayload.create(RequestEncodingTests.eventType)
        #expect(throws: (any Error).self) {
            try MutationPayload.fold(create: create, update: Data("[1]".utf8), of: .eventType)
        }
        #expect(throws: (any Error).self) {
            try MutationPayload.fold(create: create, update: Data(#"{"name":5}"#.utf8), of: .eventType)
        }
    }

    @Test("JSONValue literals, accessors and integral numbers")
    func jsonValue() throws {
        let value: JSONValue = ["a": [1, 2.5, "x", true, nil], "b": ["c": 3]]
        #expect(value["a"]?.arrayValue?.count == 5 && value["b"]?["c"]?.intValue == 3)
        #expect(JSONValue.number(2.5).intValue == nil && JSONValue.string("x").intValue == nil)
        let encoded = String(decoding: try JSONCoding.encode(value), as: UTF8.self)
        #expect(encoded == #"{"a":[1,2.5,"x",true,null],"b":{"c":3}}"#)
        #expect(try JSONCoding.decode(JSONValue.self, from: Data(encoded.utf8)) == value)
    }
}
