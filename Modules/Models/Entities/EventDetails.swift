import Foundation

/// The optional fields of an event, defined once (docs/architecture.md, "One definition per field").
///
/// `Event`, `APIEvent`, `CreateEventRequest` and `UpdateEventRequest` each hold one of these and show its members
/// as their own (`@dynamicMemberLookup`). Everything that handles the fields one by one — the JSON of those types,
/// the local store's columns, the change feed's clearable keys, applying a change entry, the in-memory server —
/// walks `fields` instead of naming them. A new optional field is a stored property, an `init` parameter and a
/// `fields` entry here, plus a column in each schema.
public struct EventDetails: Sendable, Hashable {
    /// When the event ended; nil for an instant.
    public var endDate: Date?
    /// The id the event had in the source it was imported from (a calendar), for the user's reference.
    public var externalId: String?
    /// The title the event had in that source.
    public var originalTitle: String?
    /// The geofence whose entry or exit logged it.
    public var geofenceId: String?
    /// Set together with `locationLongitude`, or both nil.
    public var locationLatitude: Double?
    /// Set together with `locationLatitude`, or both nil.
    public var locationLongitude: Double?
    /// A place's name, with or without coordinates.
    public var locationName: String?
    /// Never used for de-duplication.
    public var healthKitSampleId: String?
    /// The HealthKit category of the sample it came from.
    public var healthKitCategory: String?

    /// Details; each is nil unless given.
    public init(
        endDate: Date? = nil,
        externalId: String? = nil,
        originalTitle: String? = nil,
        geofenceId: String? = nil,
        locationLatitude: Double? = nil,
        locationLongitude: Double? = nil,
        locationName: String? = nil,
        healthKitSampleId: String? = nil,
        healthKitCategory: String? = nil
    ) {
        self.endDate = endDate
        self.externalId = externalId
        self.originalTitle = originalTitle
        self.geofenceId = geofenceId
        self.locationLatitude = locationLatitude
        self.locationLongitude = locationLongitude
        self.locationName = locationName
        self.healthKitSampleId = healthKitSampleId
        self.healthKitCategory = healthKitCategory
    }

    /// Each field's JSON key (also its column name in both stores), kind and whether `null` clears it.
    public static let fields: [Field] = [
        .time("end_date", \.endDate, clearable: true),
        .text("external_id", \.externalId, clearable: true),
        .text("original_title", \.originalTitle, clearable: true),
        .id("geofence_id", \.geofenceId, clearable: true),
        .coordinate("location_latitude", \.locationLatitude, in: -90...90),
        .coordinate("location_longitude", \.locationLongitude, in: -180...180),
        .text("location_name", \.locationName, clearable: true),
        .text("healthkit_sample_id", \.healthKitSampleId, clearable: false),
        .text("healthkit_category", \.healthKitCategory, clearable: false),
    ]

    /// The keys of `fields`, in their order.
    public static let keys = fields.map(\.key)

    /// True when every field is nil, as on most events.
    public var isEmpty: Bool { self == EventDetails() }

    /// The fields as a server stores them: times to whole milliseconds, ids lower-case.
    public var normalized: EventDetails {
        var normalized = self
        for field in Self.fields {
            switch (field.kind, self[field]) {
            case (.id, .text(let id)?): normalized[field] = .text(id.lowercased())
            case (.time, .time(let date)?): normalized[field] = .time(date.roundedToMilliseconds)
            default: break
            }
        }
        return normalized
    }
}

// MARK: - The field table

extension EventDetails {
    /// A field's value, as every store and every JSON document spells it.
    public enum Value: Sendable, Hashable {
        /// Text, and ids.
        case text(String)
        /// A coordinate.
        case number(Double)
        /// An instant.
        case time(Date)

        /// The JSON member: a string, a number, or an RFC 3339 string.
        public var json: JSONValue {
            switch self {
            case .text(let text): .string(text)
            case .number(let number): .number(number)
            case .time(let date): .string(RFC3339.string(from: date))
            }
        }
    }

    /// What a field holds, and so how it is checked and stored.
    public enum Kind: Sendable, Hashable {
        /// Free text.
        case text
        /// An entity id: stored lower-case.
        case id
        /// An instant, RFC 3339 in JSON.
        case time
        /// One of a location's coordinates, within its range; the pair is set or cleared together.
        case coordinate(ClosedRange<Double>)

        /// True for either coordinate of a location.
        public var isCoordinate: Bool { if case .coordinate = self { true } else { false } }
    }

    /// One optional field: its key, its kind, and how to read and write it on a value.
    public struct Field: Sendable {
        /// The JSON key and column name (`end_date`).
        public let key: String
        /// What it holds.
        public let kind: Kind
        /// Whether an explicit `null` in an update or a change entry clears it (api-v1 §3.5).
        public let clearable: Bool
        fileprivate let read: @Sendable (EventDetails) -> Value?
        fileprivate let write: @Sendable (inout EventDetails, Value?) -> Void

        /// The value a JSON member holds for this field, or nil when it holds no such value (null, a wrong type, a
        /// time that does not parse). Ids come back lower-case.
        public func value(json: JSONValue) -> Value? {
            switch (kind, json) {
            case (.text, .string(let text)): .text(text)
            case (.id, .string(let text)): .text(text.lowercased())
            case (.time, .string(let text)): RFC3339.date(from: text).map(Value.time)
            case (.coordinate, .number(let number)): .number(number)
            default: nil
            }
        }

        static func text(
            _ key: String, _ path: any WritableKeyPath<EventDetails, String?> & Sendable, clearable: Bool
        ) -> Field {
            Field(key, .text, clearable: clearable, path, wrap: Value.text) {
                if case .text(let text) = $0 { text } else { nil }
            }
        }

        static func id(
            _ key: String, _ path: any WritableKeyPath<EventDetails, String?> & Sendable, clearable: Bool
        ) -> Field {
            Field(key, .id, clearable: clearable, path, wrap: Value.text) {
                if case .text(let text) = $0 { text } else { nil }
            }
        }

        static func time(
            _ key: String, _ path: any WritableKeyPath<EventDetails, Date?> & Sendable, clearable: Bool
        ) -> Field {
            Field(key, .time, clearable: clearable, path, wrap: Value.time) {
                if case .time(let date) = $0 { date } else { nil }
            }
        }

        static func coordinate(
            _ key: String, _ path: any WritableKeyPath<EventDetails, Double?> & Sendable, in range: ClosedRange<Double>
        ) -> Field {
            Field(key, .coordinate(range), clearable: true, path, wrap: Value.number) {
                if case .number(let number) = $0 { number } else { nil }
            }
        }

        /// A field stored at `path`: `wrap` makes its value, `unwrap` takes a value of its kind back (nil for another).
        private init<Stored>(
            _ key: String, _ kind: Kind, clearable: Bool, _ path: any WritableKeyPath<EventDetails, Stored?> & Sendable,
            wrap: @escaping @Sendable (Stored) -> Value, unwrap: @escaping @Sendable (Value) -> Stored?
        ) {
            self.key = key
            self.kind = kind
            self.clearable = clearable
            read = { $0[keyPath: path].map(wrap) }
            write = { details, value in
                guard let value else {
                    details[keyPath: path] = nil
                    return
                }
                if let stored = unwrap(value) { details[keyPath: path] = stored }
            }
        }
    }

    /// One field's value; setting nil clears it, setting a value of another kind changes nothing.
    public subscript(field: Field) -> Value? {
        get { field.read(self) }
        set { field.write(&self, newValue) }
    }
}

// MARK: - JSON

/// A coding key spelled by its string, so that an entity's own members and its details share one container.
struct FieldKey: CodingKey, Hashable, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { nil }
    init(stringLiteral name: String) { self.init(name) }
}

extension EventDetails {
    /// Reads the fields from an entity's container. `strict` is for a file a user hands in: ids must be UUIDs and
    /// times must parse. Otherwise (server data, request bodies) a time that does not parse reads as absent.
    init(from container: KeyedDecodingContainer<FieldKey>, strict: Bool) throws {
        self.init()
        for field in Self.fields {
            let key = FieldKey(field.key)
            switch field.kind {
            case .text:
                self[field] = try container.decodeIfPresent(String.self, forKey: key).map(Value.text)
            case .id:
                let id =
                    strict
                    ? try container.decodeIdIfPresent(forKey: key)
                    : try container.decodeIfPresent(
                        String.self, forKey: key)
                self[field] = id.map(Value.text)
            case .time:
                let date =
                    strict
                    ? try container.decodeTimestampStrictlyIfPresent(forKey: key)
                    : container.decodeTimestampIfPresent(forKey: key)
                self[field] = date.map(Value.time)
            case .coordinate:
                self[field] = try container.decodeIfPresent(Double.self, forKey: key).map(Value.number)
            }
        }
    }

    /// Writes the fields into an entity's container: nil fields are omitted, or written as `null` when `clearing`
    /// names them (a partial update's clears).
    func encode(to container: inout KeyedEncodingContainer<FieldKey>, clearing: Set<String> = []) throws {
        for field in Self.fields {
            let key = FieldKey(field.key)
            switch self[field] {
            case nil: if clearing.contains(field.key) { try container.encodeNil(forKey: key) }
            case .text(let text)?: try container.encode(text, forKey: key)
            case .number(let number)?: try container.encode(number, forKey: key)
            case .time(let date)?: try container.encodeTimestamp(date, forKey: key)
            }
        }
    }
}
