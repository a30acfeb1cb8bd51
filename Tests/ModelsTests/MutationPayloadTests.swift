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

    @Test("S8 R1 an update payload holds exactly the keys the edit changed: null clears, coordinates as a pair")
    func patches() throws {
        let before = RequestEncodingTests.event
        var after = before
        after.notes = nil
        after.locationLongitude = 13.5
        after.properties["mood"] = PropertyValue(type: .text, value: "calm")
        after.properties["strength"] = nil
        let patch = try json(try #require(try MutationPayload.patch(from: before, to: after)))
        // S8 (R1): only changed keys; a cleared field is null; both coordinates; properties key by key.
        #expect(
            patch == [
                "notes": .null, "location_latitude": 52.52, "location_longitude": 13.5,
                "properties_patch": ["mood": ["type": "text", "value": "calm"], "strength": .null],
            ])
        #expect(
            try MutationPayload.patch(from: before, to: before) == nil, "an edit that changes nothing queues nothing")
        var fence = RequestEncodingTests.geofence
        let original = fence
        fence.eventTypeEntryId = nil
        fence.radius = 250
        let fencePatch = try json(try #require(try MutationPayload.patch(from: original, to: fence)))
        #expect(fencePatch == ["event_type_entry_id": .null, "radius": 250])
    }

    @Test("R2 patches merge key by key, properties per key; an acknowledged revision leaves what it did not carry")
    func mergingPatches() throws {
        func data(_ value: JSONValue) throws -> Data { try JSONCoding.encode(value) }
        let older: JSONValue = ["notes": "a", "properties_patch": ["x": ["type": "text", "value": "1"]]]
        let newer: JSONValue = ["is_all_day": true, "properties_patch": ["y": .null]]
        let merged = try json(try MutationPayload.merge(try data(older), try data(newer), of: .event))
        #expect(
            merged == [
                "notes": "a", "is_all_day": true,
                "properties_patch": ["x": ["type": "text", "value": "1"], "y": .null],
            ])
        let left = try MutationPayload.subtracting(try data(older), from: try data(merged), of: .event)
        #expect(try left.map(json) == ["is_all_day": true, "properties_patch": ["y": .null]])
        #expect(try MutationPayload.subtracting(try data(merged), from: try data(merged), of: .event) == nil)
    }

    @Test("R2 a removed property leaves the map: folded into a create, merged into a whole map, or acknowledged")
    func removedPropertiesLeave() throws {
        func data(_ value: JSONValue) throws -> Data { try JSONCoding.encode(value) }
        let create = try MutationPayload.create(RequestEncodingTests.event)
        let removal: JSONValue = ["properties_patch": ["mood": .null, "km": ["type": "number", "value": 5]]]
        let folded = try json(try MutationPayload.fold(create: create, update: try data(removal), of: .event))
        let properties = try #require(folded["properties"]?.objectValue)
        #expect(properties["mood"] == nil && properties["km"] == ["type": "number", "value": 5], "no null entry")
        #expect(folded["properties_patch"] == nil)

        let whole: JSONValue = ["properties": ["mood": ["type": "text", "value": "ok"]]]
        let merged = try json(try MutationPayload.merge(try data(whole), try data(removal), of: .event))
        #expect(merged == ["properties": ["km": ["type": "number", "value": 5]]])

        let queued: JSONValue = ["notes": "n", "properties_patch": ["mood": .null]]
        let left = try MutationPayload.subtracting(
            try data(["properties_patch": ["mood": .null]]), from: try data(queued), of: .event)
        #expect(try left.map(json) == ["notes": "n"], "an acknowledged patch leaves no properties_patch key")
    }
}
