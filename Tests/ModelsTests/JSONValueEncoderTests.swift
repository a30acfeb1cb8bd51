import Foundation
import Models
import Testing

/// `JSONValueEncoder` against its definition: the tree `JSONText.parse(JSONCoding.encode(value))` gives.
@Suite("JSONValueEncoder")
struct JSONValueEncoderTests {
    static func viaText(_ value: some Encodable) throws -> JSONValue {
        try JSONText.parse(Array(JSONCoding.encode(value)))
    }

    @Test("every fixture's typed value encodes to the tree its JSON text parses to", arguments: FixtureFiles.names)
    func fixture(name: String) throws {
        let decode = try #require(FixtureFiles.shape(of: name), "no shape for \(name)")
        let value = try decode(try FixtureFiles.data(name))
        #expect(try JSONValueEncoder.encode(value) == (try Self.viaText(value)))
    }

    /// Every form a value's type chooses, nested in objects and arrays.
    struct Everything: Encodable {
        var text = "a \"quoted\" / slash"
        var flag = true
        var integer = -42
        var large: Int64 = 1 << 52
        var unsigned: UInt8 = 255
        var fraction = 0.1
        var negativeZero = -0.0
        var single: Float = 0.1
        var date = Date(timeIntervalSince1970: 1_700_000_000.123)
        var bytes = Data([0, 1, 254, 255])
        var url = URL(string: "https://example.com/a?b=c")
        var absent: String? = nil
        var list: [Int?] = [1, nil, 3]
        var nested: [String: [Double]] = ["a": [1.5], "b": []]
        var json: JSONValue = .object(["k": .array([.null, .bool(false)])])
        var empty = Nothing()
        var wrapped = Wrapper(inner: ["x": 1])

        enum CodingKeys: String, CodingKey {
            case text, flag, integer, large, unsigned, fraction, single, date, bytes, url, absent, list, nested, json
            case empty, wrapped, more
            case negativeZero = "negative_zero"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encode(flag, forKey: .flag)
            try container.encode(integer, forKey: .integer)
            try container.encode(large, forKey: .large)
            try container.encode(unsigned, forKey: .unsigned)
            try container.encode(fraction, forKey: .fraction)
            try container.encode(negativeZero, forKey: .negativeZero)
            try container.encode(single, forKey: .single)
            try container.encode(date, forKey: .date)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(url, forKey: .url)
            try container.encodeIfPresent(absent, forKey: .absent)
            try container.encodeNil(forKey: .absent)
            try container.encode(list, forKey: .list)
            var nestedContainer = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .nested)
            for (key, values) in nested.sorted(by: { $0.key < $1.key }) {
                try nestedContainer.encode(values, forKey: key == "a" ? .text : .flag)
            }
            try container.encode(json, forKey: .json)
            try container.encode(empty, forKey: .empty)
            try container.encode(wrapped, forKey: .wrapped)
            var elements = container.nestedUnkeyedContainer(forKey: .more)
            try elements.encode("first")
            var inner = elements.nestedContainer(keyedBy: CodingKeys.self)
            try inner.encode(1, forKey: .integer)
        }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct Wrapper: Encodable {
        var inner: [String: Int]
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(inner)
        }
    }

    @Test("scalars, dates, data, URLs, nil, nested and single-value containers match JSONEncoder's text")
    func everyForm() throws {
        let value = Everything()
        let encoded = try JSONValueEncoder.encode(value)
        #expect(encoded == (try Self.viaText(value)))
        guard case .object(let members) = encoded else {
            Issue.record("not an object: \(encoded)")
            return
        }
        #expect(members["date"] == .string("2023-11-14T22:13:20.123Z"))
        #expect(members["absent"] == .null && members["empty"] == .object([:]))
        #expect(members["list"] == .array([.number(1), .null, .number(3)]))
        #expect(members["more"] == .array([.string("first"), .object(["integer": .number(1)])]))
    }

    @Test("a non-finite number is refused with its coding path, as JSONEncoder refuses it")
    func nonFinite() {
        struct Bad: Encodable { var values = [1.0, .nan] }
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Bad()) }
        #expect(throws: EncodingError.self) { try JSONCoding.encode(Bad()) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Float.infinity) }
    }
}
