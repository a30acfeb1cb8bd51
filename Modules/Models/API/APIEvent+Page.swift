import Foundation

extension APIEvent {
    /// A page of `GET /events` read from its bytes: the same events `JSONCoding.decode([APIEvent].self, …)` gives,
    /// about five times faster, which is most of a bootstrap's time on a large account (docs/performance.md, "A
    /// million-event account"). The bytes are parsed once by `JSONText` and each event is read from the tree by the
    /// rules of `init(from:)`; anything those rules would refuse (a member of the wrong type) sends the whole page
    /// through `Codable`, so a malformed page fails with the same error either way. `APIEventPageTests` holds the two
    /// equal.
    ///
    /// The events' embedded types are read once per distinct text (`JSONText.parse(_:sharing:)`) and share one copy.
    public static func page(from bytes: Data) throws -> [APIEvent] {
        if let tree = try? JSONText.parse(bytes, sharing: "event_type"), case .array(let items) = tree {
            var events: [APIEvent] = []
            events.reserveCapacity(items.count)
            var types = EmbeddedTypes()
            for item in items {
                guard let event = APIEvent(tree: item, types: &types) else {
                    return try JSONCoding.decode([APIEvent].self, from: bytes)
                }
                events.append(event)
            }
            return events
        }
        return try JSONCoding.decode([APIEvent].self, from: bytes)
    }

    /// The embedded types read from a page, by id: the parser hands one tree to the events whose `event_type` text
    /// repeats, and they get one type (the comparison finds the storage identical at once).
    struct EmbeddedTypes {
        var known: [String: (tree: JSONValue, type: Box<APIEventType>?)] = [:]

        mutating func type(of tree: JSONValue) -> Box<APIEventType>? {
            let id = tree["id"]?.stringValue ?? ""
            if let earlier = known[id], earlier.tree == tree { return earlier.type }
            let type = APIEventType(tree: tree).map(Box.init)
            if known.count < 4096 { known[id] = (tree, type) }
            return type
        }
    }

    /// One event of a parsed page, or nil where `init(from:)` would throw.
    init?(tree: JSONValue, types: inout EmbeddedTypes) {
        guard case .object(let members) = tree, case .string(let id)? = members["id"],
            let userId = Self.string(members["user_id"]), let eventTypeId = Self.string(members["event_type_id"]),
            let notes = Self.string(members["notes"]), let isAllDay = Self.bool(members["is_all_day"])
        else { return nil }
        var details = EventDetails()
        for field in EventDetails.fields {
            guard let member = members[field.key], member != .null else { continue }
            switch (field.kind, member) {
            case (.text, .string(let text)), (.id, .string(let text)): details[field] = .text(text)
            case (.time, _): details[field] = member.stringValue.flatMap(RFC3339.date(from:)).map { .time($0) }
            case (.coordinate, .number(let number)): details[field] = .number(number)
            default: return nil
            }
        }
        var eventType: Box<APIEventType>?
        if let typeTree = members["event_type"], typeTree != .null {
            eventType = types.type(of: typeTree)
        }
        self.init(
            id: id, userId: userId ?? "", eventTypeId: eventTypeId ?? "",
            timestamp: Self.time(members["timestamp"]) ?? .zeroInstant, notes: notes,
            isAllDay: isAllDay ?? false,
            sourceType: EventSourceType(lenient: members["source_type"]?.stringValue ?? ""), details: details,
            properties: members["properties"].flatMap(PropertyValue.map(from:)) ?? [:],
            createdAt: Self.time(members["created_at"]), updatedAt: Self.time(members["updated_at"]))
        embeddedType = eventType
    }

    /// An optional string member: `.some(nil)` when absent or null, nil when of another type.
    private static func string(_ member: JSONValue?) -> String?? {
        switch member {
        case nil, .null?: .some(nil)
        case .string(let text)?: .some(text)
        default: nil
        }
    }

    private static func bool(_ member: JSONValue?) -> Bool?? {
        switch member {
        case nil, .null?: .some(nil)
        case .bool(let flag)?: .some(flag)
        default: nil
        }
    }

    /// A lenient time, as `decodeTimestampIfPresent`: anything but an RFC 3339 string reads as absent.
    fileprivate static func time(_ member: JSONValue?) -> Date? {
        member?.stringValue.flatMap(RFC3339.date(from:))
    }
}

extension APIEventType {
    /// An embedded `event_type` of a parsed page, or nil where its `init(from:)` would throw (the event then has
    /// none, as with `try?`).
    init?(tree: JSONValue) {
        guard case .object(let members) = tree, case .string(let id)? = members["id"],
            let fields = EventTypeFields(serverMembers: members)
        else { return nil }
        let userId: String
        switch members["user_id"] {
        case nil, .null?: userId = ""
        case .string(let text)?: userId = text
        default: return nil
        }
        self.init(
            id: id, userId: userId, fields: fields, createdAt: APIEvent.time(members["created_at"]),
            updatedAt: APIEvent.time(members["updated_at"]))
    }
}
