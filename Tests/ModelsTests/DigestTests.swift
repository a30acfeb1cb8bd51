import Foundation
import Hashing
import Models
import Protocols
import TestSupport
import Testing

/// The sync digest's parts (api-v1 §14): RFC 8785 bytes, the 256-bit sum, the canonical objects and the test
/// vectors every implementation reproduces.
@Suite("Sync digest")
struct DigestTests {
    static let vectors: [(canonical: String, sha256: String)] = DigestTestVectors.all.map { ($0.canonical, $0.sha256) }

    @Test("RFC 8785 numbers: ECMAScript's shortest form, exponents below 1e-6 and from 1e21")
    func numbers() {
        let cases: [(Double, String)] = [
            (100, "100"), (51.5, "51.5"), (-0.12, "-0.12"), (2.0, "2"), (-0.0, "0"), (1e-7, "1e-7"), (1e21, "1e+21"),
            (1e20, "100000000000000000000"), (0.000001, "0.000001"), (123e-20, "1.23e-18"),
            (0.1 + 0.2, "0.30000000000000004"),
            (Double.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
            (13.405, "13.405"),
            (1_768_614_292_123, "1768614292123"), (4.5e15, "4500000000000000"), (-1e-7, "-1e-7"),
            (333333333.3333333, "333333333.3333333"),
        ]
        for (number, text) in cases { #expect(CanonicalJSON.numberText(number) == text, "\(number)") }
    }

    @Test("RFC 8785 strings and member order: JSON.stringify escapes, names by UTF-16 code units")
    func stringsAndOrder() {
        let text = String(decoding: CanonicalJSON.bytes(.string("\u{0}\u{8}\u{1f}\"\\/\n\té€😀\u{7f}")), as: UTF8.self)
        #expect(text == #""\u0000\b\u001f\"\\/\n\té€😀\#u{7f}""#)
        // RFC 8785 §3.2.3's example of sorting: a name beyond the BMP sorts by its surrogates, before U+FB33.
        let object: JSONValue = [
            "\u{20ac}": "Euro Sign", "\r": "Carriage Return", "\u{fb33}": "Hebrew Letter Dalet With Dagesh",
            "1": "One", "\u{1f600}": "Emoji: Grinning Face", "\u{80}": "Control",
            "\u{f6}": "Latin Small Letter O With Diaeresis",
        ]
        let order = String(decoding: CanonicalJSON.bytes(object), as: UTF8.self)
        let names = ["\\r", "1", "\u{80}", "\u{f6}", "\u{20ac}", "\u{1f600}", "\u{fb33}"]
        let positions = names.map { order.range(of: "\"\($0)\":")?.lowerBound }
        #expect(
            positions.allSatisfy { $0 != nil }
                && positions == positions.sorted { ($0 ?? order.endIndex) < ($1 ?? order.endIndex) })
        #expect(
            String(decoding: CanonicalJSON.bytes([1, [true, .null], ["b": 1, "a": "x"]]), as: UTF8.self)
                == #"[1,[true,null],{"a":"x","b":1}]"#)
    }

    @Test("the sum is modulo 2^256 and commutes; a duplicate adds twice")
    func sums() throws {
        let one = try #require(DigestSum(hex: String(repeating: "0", count: 63) + "1"))
        let top = try #require(DigestSum(hex: String(repeating: "f", count: 64)))
        #expect((top + one).hexString == String(repeating: "0", count: 64), "wraps around")
        let carry = try #require(DigestSum(hex: "00000000000000000000000000000000ffffffffffffffffffffffffffffffff"))
        #expect((carry + one).hexString == "0000000000000000000000000000000100000000000000000000000000000000")
        let a = try #require(DigestSum(hex: Self.vectors[0].sha256))
        let b = try #require(DigestSum(hex: Self.vectors[1].sha256))
        #expect(a + b == b + a && (a + a) != DigestSum())
        #expect(DigestSum(hex: "xyz") == nil && a.hexString == Self.vectors[0].sha256)
    }

    @Test("api-v1 §14 test vectors: the server's objects and the device's rows give the canonical bytes and hashes")
    func vectors() throws {
        let hashing = CryptoSHA256()
        for vector in Self.vectors { #expect(hashing.hexDigest(of: vector.canonical) == vector.sha256) }

        let type = APIEventType(
            id: "0192f1c4-7a00-7000-8000-000000000001", userId: "someone", name: "Coffee", color: "#007AFF",
            icon: "cup.and.saucer", createdAt: Build.instant, updatedAt: Build.instant)
        #expect(
            String(decoding: try EntityDigest.canonicalBytes(.eventType(type)), as: UTF8.self)
                == Self.vectors[0].canonical)
        var localType = Build.eventType(id: type.id)
        localType.replaceFields(with: type)
        #expect(
            String(decoding: try EntityDigest.canonicalBytes(localType), as: UTF8.self) == Self.vectors[0].canonical)

        // The event as the server returns it, stored with `"value": 2.0` and an embedded type.
        let rest = #"""
            {"id":"0192f1c4-7a00-7000-8000-0000000000a2","user_id":"someone","event_type_id":"0192f1c4-7a00-7000-8000-000000000001",
            "timestamp":"2026-11-01T09:00:00Z","notes":"","is_all_day":false,"source_type":"manual","location_latitude":51.5,
            "location_longitude":-0.12,"properties":{"mood":{"type":"text","value":null},"cups":{"type":"number","value":2.0}},
            "created_at":"2026-11-01T09:00:01Z","updated_at":"2026-11-01T09:00:02Z","event_type":\#(String(decoding: try JSONCoding.encode(type), as: UTF8.self))}
            """#
        let event = try JSONCoding.decode(APIEvent.self, from: Data(rest.utf8))
        let bytes = try EntityDigest.canonicalBytes(.event(event))
        #expect(String(decoding: bytes, as: UTF8.self) == Self.vectors[1].canonical)
        #expect(DigestSum(hash: hashing.digest(of: bytes)).hexString == Self.vectors[1].sha256)
        var local = Build.event(id: event.id)
        local.replaceFields(with: event)
        #expect(String(decoding: try EntityDigest.canonicalBytes(local), as: UTF8.self) == Self.vectors[1].canonical)

        // The geofence and the definition, as the server returns them (with the fields the digest leaves out).
        let fence = APIGeofence(
            id: DigestTestVectors.geofence.id, userId: "someone",
            fields: GeofenceFields(
                name: "Büro", latitude: 52.520008, longitude: 13.404954, radius: 150, eventTypeEntryId: type.id,
                isActive: true, notifyOnEntry: true, notifyOnExit: false, iosRegionIdentifier: "region-1"))
        let definition = APIPropertyDefinition(
            id: DigestTestVectors.propertyDefinition.id, userId: "someone", eventTypeId: type.id,
            fields: PropertyDefinitionFields(
                key: "size", label: "Size", propertyType: .select, options: ["small", "large"], defaultValue: "small",
                displayOrder: 1))
        var localFence = Build.geofence(id: fence.id)
        localFence.replaceFields(with: fence)
        var localDefinition = Build.propertyDefinition(id: definition.id)
        localDefinition.replaceFields(with: definition)
        for (server, device, vector) in [
            (try EntityDigest.canonicalBytes(.geofence(fence)), try EntityDigest.canonicalBytes(localFence), 2),
            (
                try EntityDigest.canonicalBytes(.propertyDefinition(definition)),
                try EntityDigest.canonicalBytes(localDefinition), 3
            ),
        ] {
            #expect(String(decoding: server, as: UTF8.self) == Self.vectors[vector].canonical, "vector \(vector)")
            #expect(device == server, "vector \(vector): the device's row")
            #expect(DigestSum(hash: hashing.digest(of: server)).hexString == Self.vectors[vector].sha256)
        }
    }

    @Test("a device's row and the server's object of every entity type, every field set, hash alike")
    func localEqualsServer() throws {
        let user = "someone"
        let type = APIEventType(id: Build.id(1), userId: user, name: "Tea", color: "#fff", icon: "leaf")
        var event = APIEvent(
            id: Build.id(2), userId: user, eventTypeId: type.id, timestamp: Build.instant, notes: "n", isAllDay: true,
            sourceType: .imported, details: Build.everyDetail,
            properties: ["k": PropertyValue(type: .select, value: "a"), "n": PropertyValue(type: .number, value: 1e-7)])
        event.eventType = type
        let fence = APIGeofence(
            id: Build.id(3), userId: user,
            fields: GeofenceFields(
                name: "Home", latitude: 52.5, longitude: 13.4, radius: 100, eventTypeEntryId: type.id, isActive: false,
                notifyOnEntry: true, notifyOnExit: false, iosRegionIdentifier: "region"))
        let definition = APIPropertyDefinition(
            id: Build.id(4), userId: user, eventTypeId: type.id,
            fields: PropertyDefinitionFields(
                key: "k", label: "K", propertyType: .select, options: ["a", "b"], defaultValue: "a", displayOrder: 3))
        var localType = Build.eventType(id: type.id)
        localType.replaceFields(with: type)
        var localEvent = Build.event(id: event.id)
        localEvent.replaceFields(with: event)
        var localFence = Build.geofence(id: fence.id)
        localFence.replaceFields(with: fence)
        var localDefinition = Build.propertyDefinition(id: definition.id)
        localDefinition.replaceFields(with: definition)
        #expect(try EntityDigest.canonicalBytes(localType) == EntityDigest.canonicalBytes(.eventType(type)))
        #expect(try EntityDigest.canonicalBytes(localEvent) == EntityDigest.canonicalBytes(.event(event)))
        #expect(try EntityDigest.canonicalBytes(localFence) == EntityDigest.canonicalBytes(.geofence(fence)))
        #expect(
            try EntityDigest.canonicalBytes(localDefinition)
                == EntityDigest.canonicalBytes(.propertyDefinition(definition)))
        let fenceText = String(decoding: try EntityDigest.canonicalBytes(localFence), as: UTF8.self)
        #expect(!fenceText.contains("ios_region_identifier") && !fenceText.contains("event_type_exit_id"))
        #expect(fenceText.contains(#""is_active":false"#) && fenceText.contains(#""entity_type":"geofence""#))
    }

    @Test("buckets: the id's last two hex digits; names are two lowercase hex digits")
    func buckets() {
        #expect(EntityDigest.bucket(of: "0192f1c4-7a00-7000-8000-0000000000A2") == "a2")
        #expect(EntityDigest.bucketNames.count == 256 && EntityDigest.bucketNames.first == "00")
        #expect(EntityDigest.isBucketName("0f") && !EntityDigest.isBucketName("0F") && !EntityDigest.isBucketName("0"))
        var builder = DigestBuilder()
        builder.add(.event, id: "x-a2", hash: Array(repeating: 1, count: 32))
        builder.add(.geofence, id: "x-A2", hash: Array(repeating: 2, count: 32))
        builder.add(.event, id: "x-0f", hash: Array(repeating: 3, count: 32))
        let digest = builder.digest(cursor: 7)
        #expect(digest.count == 3 && digest.buckets.count == 256 && digest.types.count == 4)
        let a2 = DigestSum(hash: Array(repeating: 1, count: 32)) + DigestSum(hash: Array(repeating: 2, count: 32))
        #expect(digest.buckets["a2"] == a2.hexString, "an upper-case id falls in its lower-case bucket")
        #expect(digest.buckets["0f"] == DigestSum(hash: Array(repeating: 3, count: 32)).hexString)
        #expect(digest.buckets["00"] == DigestSum().hexString && digest.cursor == 7)
        #expect(digest.types["event"]?.count == 2 && digest.types["geofence"]?.count == 1)
        #expect(digest.types["event_type"] == SyncDigest.TypeDigest(count: 0, hash: DigestSum().hexString))
    }

    /// The definition of an event's canonical object is its REST object through `Codable` (`canonicalObject`); the
    /// digest writes the same bytes from the fields directly. Every shape of event, both ways.
    @Test("an event's canonical bytes written from its fields equal its Codable object's, for every field and escape")
    func eventBytesEqualTheCodablePath() throws {
        let user = "someone"
        var events: [APIEvent] = [
            APIEvent(
                id: Build.id(2), userId: user, eventTypeId: Build.id(1), timestamp: Build.instant, notes: nil,
                isAllDay: false, sourceType: .manual, details: EventDetails(), properties: [:]),
            APIEvent(
                id: Build.id(3), userId: user, eventTypeId: Build.id(1),
                timestamp: Build.instant.addingTimeInterval(0.5),
                notes: "line\nbreak \"quoted\" \\ \u{1} é 😀", isAllDay: true, sourceType: .healthkit,
                details: Build.everyDetail,
                properties: [
                    "k": PropertyValue(type: .select, value: "a"), "n": PropertyValue(type: .number, value: 1e-7),
                    "é": PropertyValue(type: .boolean, value: true), "😀": PropertyValue(type: .text, value: .null),
                    "\u{FF61}": PropertyValue(type: .text, value: "half-width"),
                ]),
            APIEvent(
                id: Build.id(4), userId: user, eventTypeId: Build.id(1), timestamp: Date(timeIntervalSince1970: -1),
                notes: "", isAllDay: false, sourceType: .imported,
                details: EventDetails(locationLatitude: 0, locationLongitude: -0.12, locationName: "\t"),
                properties: ["nested": PropertyValue(type: .text, value: .object(["b": 1, "a": [true, .null]]))]),
        ]
        events[0].eventType = APIEventType(id: Build.id(1), userId: user, name: "Tea", color: "#fff", icon: "leaf")
        for event in events {
            let throughCodable = CanonicalJSON.bytes(
                EntityDigest.canonicalObject(try JSONValueEncoder.encode(event), entityType: .event))
            #expect(try EntityDigest.canonicalBytes(.event(event)) == throughCodable, "\(event.id)")
            var local = Build.event(id: event.id)
            local.replaceFields(with: event)
            let bodyThroughCodable = CanonicalJSON.bytes(
                EntityDigest.canonicalObject(try JSONValueEncoder.encode(CreateEventRequest(local)), entityType: .event)
            )
            #expect(try EntityDigest.canonicalBytes(local) == bodyThroughCodable, "\(event.id) as a device's row")
            #expect(bodyThroughCodable == throughCodable)
        }
    }
}
