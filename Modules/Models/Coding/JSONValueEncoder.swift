import Foundation

/// Encodes a value straight into a `JSONValue`: the same tree as `JSONText.parse(JSONCoding.encode(value))`, without
/// writing the text and reading it back. The server builds every change snapshot from its entity (api-v1 §6.3), and
/// that detour through Foundation's `JSONEncoder` and the parser was a sixth of a 500-event batch's server time
/// (docs/history/performance.md, "Server on loopback").
///
/// It follows `JSONCoding`'s encoder where a value's type chooses its form: dates are RFC 3339 strings, `Data` is
/// Base64, a URL is its absolute string, and a non-finite number cannot be encoded. Numbers are `Double`s, as the
/// parser gives them.
public enum JSONValueEncoder {
    /// `value` as the JSON its `Encodable` conformance writes.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        try node(for: value, at: []).resolved
    }

    /// The node of one encoded value: a leaf for the types JSON writes directly, otherwise whatever the value's own
    /// `encode(to:)` puts in a fresh node.
    fileprivate static func node(for value: some Encodable, at path: [any CodingKey]) throws -> Node {
        if let leaf = try leaf(value, at: path) { return Node(leaf) }
        let node = Node()
        try value.encode(to: NodeEncoder(node: node, codingPath: path))
        return node
    }

    private static func leaf(_ value: some Encodable, at path: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let value as JSONValue: return value
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Double: return try number(value, at: path)
        // JSONEncoder writes a Float's shortest text, which the parser reads as the nearest Double of that text.
        case let value as Float: return try number(Double("\(value)") ?? Double(value), at: path)
        case let value as Int: return .number(Double(value))
        case let value as Int8: return .number(Double(value))
        case let value as Int16: return .number(Double(value))
        case let value as Int32: return .number(Double(value))
        case let value as Int64: return .number(Double(value))
        case let value as UInt: return .number(Double(value))
        case let value as UInt8: return .number(Double(value))
        case let value as UInt16: return .number(Double(value))
        case let value as UInt32: return .number(Double(value))
        case let value as UInt64: return .number(Double(value))
        case let value as Date: return .string(RFC3339.string(from: value))
        case let value as Data: return .string(value.base64EncodedString())
        case let value as URL: return .string(value.absoluteString)
        default: return nil
        }
    }

    private static func number(_ value: Double, at path: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path, debugDescription: "\(value) is not a valid JSON number"))
        }
        return .number(value)
    }
}

/// One value under construction. Containers hand out nodes and fill them later (a nested container is written
/// after its parent has stored it), so nodes are references, resolved into a `JSONValue` once encoding is done.
private final class Node {
    private var leaf: JSONValue?
    private var members: [String: Node]?
    private var elements: [Node]?

    init(_ leaf: JSONValue? = nil) { self.leaf = leaf }

    /// Turns this node into an object, keeping the members already stored (a second keyed container of the same
    /// encoder adds to the first, as in JSONEncoder).
    func makeObject() {
        if members == nil { members = [:] }
    }

    func makeArray() {
        if elements == nil { elements = [] }
    }

    func set(_ node: Node, for key: String) {
        makeObject()
        members?[key] = node
    }

    func append(_ node: Node) {
        makeArray()
        elements?.append(node)
    }

    var count: Int { elements?.count ?? 0 }

    func store(_ value: JSONValue) { leaf = value }

    var resolved: JSONValue {
        if let members { return .object(members.mapValues(\.resolved)) }
        if let elements { return .array(elements.map(\.resolved)) }
        // An encoder that encoded nothing: JSONEncoder writes an empty object for it.
        return leaf ?? .object([:])
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedNodeContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.set(Node(.null), for: key.stringValue) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    private func put(_ value: some Encodable, _ key: Key) throws {
        node.set(try JSONValueEncoder.node(for: value, at: codingPath + [key]), for: key.stringValue)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        node.set(child, for: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node()
        node.set(child, for: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
        let child = Node()
        node.set(child, for: name)
        return NodeEncoder(node: child, codingPath: codingPath + [NodeKey(name)])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer, EncodesPrimitivesAsValues {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var nextPath: [any CodingKey] { codingPath + [NodeKey(index: node.count)] }

    mutating func encodeNil() throws { node.append(Node(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    func put(_ value: some Encodable) throws {
        node.append(try JSONValueEncoder.node(for: value, at: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = Node()
        node.append(child)
        return NodeEncoder(node: child, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = Node()
        node.append(child)
        return NodeEncoder(node: child, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        let child = Node()
        node.append(child)
        return NodeEncoder(node: child, codingPath: path)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer, EncodesPrimitivesAsValues {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.store(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    func put(_ value: some Encodable) throws {
        node.store(try JSONValueEncoder.node(for: value, at: codingPath).resolved)
    }

}

/// The containers without keys encode each primitive the way they encode any value: `put` decides its form.
private protocol EncodesPrimitivesAsValues {
    func put(_ value: some Encodable) throws
}

extension EncodesPrimitivesAsValues {
    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }
}

/// The key of a super encoder or of an array element in a coding path.
private struct NodeKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ name: String) {
        stringValue = name
        intValue = nil
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
