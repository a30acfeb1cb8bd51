/// Answer to `POST /api/v1/events/batch` (api-v1 §5.3.5): 201 when nothing failed, else 207; the original
/// backend also sends it with 400 when every item failed.
public struct BatchCreateEventsResponse: Sendable, Hashable {
    /// Successful items in request order. Not index-aligned with the request: match by `id`, then by
    /// `healthkit_sample_id`.
    public var created: [APIEvent]
    /// The failed items, each naming its index in the request.
    public var errors: [BatchEventError]
    /// How many items the request held.
    public var total: Int
    /// How many were created.
    public var success: Int
    /// How many failed.
    public var failed: Int
    /// The HTTP status the answer came with (201, 207, or 400 from the original backend). Not part of the JSON:
    /// the network client sets it from the response, because the engine resets the breaker multiplier only on a
    /// 2xx (sync-engine S59), and a body where every item failed looks the same under 207 and 400. A value built
    /// without one gets what api-v1 §5.3.5 prescribes: 201 when nothing failed, else 207.
    public var httpStatus: Int
    /// Set by the network client when the answer was replayed (api-v1 §7): every item's outcome is then as it was
    /// when first answered, and each item is read back (sync-engine R5). Not part of the JSON.
    public var replayed = false

    /// An answer; its status is api-v1 §5.3.5's unless given.
    public init(
        created: [APIEvent], errors: [BatchEventError] = [], total: Int, success: Int, failed: Int,
        httpStatus: Int? = nil
    ) {
        self.created = created
        self.errors = errors
        self.total = total
        self.success = success
        self.failed = failed
        self.httpStatus = httpStatus ?? (failed == 0 ? 201 : 207)
    }

    /// Whether the answer came with a 2xx status.
    public var isSuccessStatus: Bool { (200..<300).contains(httpStatus) }
}

extension BatchCreateEventsResponse: ReplayableAnswer {}

extension BatchCreateEventsResponse: Codable {
    enum CodingKeys: String, CodingKey {
        case created, errors, total, success, failed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        created = try container.decode([APIEvent].self, forKey: .created, default: [])
        errors = try container.decode([BatchEventError].self, forKey: .errors, default: [])
        total = try container.decode(Int.self, forKey: .total)
        success = try container.decode(Int.self, forKey: .success, default: created.count)
        failed = try container.decode(Int.self, forKey: .failed, default: errors.count)
        httpStatus = failed == 0 ? 201 : 207
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(created, forKey: .created)
        if !errors.isEmpty { try container.encode(errors, forKey: .errors) }
        try container.encode(total, forKey: .total)
        try container.encode(success, forKey: .success)
        try container.encode(failed, forKey: .failed)
    }
}

/// One failed item of a batch. `index` and `message` always; the rest only from our server.
public struct BatchEventError: Sendable, Hashable, Codable {
    /// The item's place in the request, from 0.
    public var index: Int
    /// What went wrong, for a human.
    public var message: String
    /// The problem type the item would have got alone (`conflict`, `validation`, …).
    public var type: String?
    /// The item's id, when it had one.
    public var id: String?
    /// The failing field, as a path in the item (`timestamp`).
    public var field: String?
    /// What is wrong with it, for a program.
    public var code: String?
    /// The caller's event that holds the conflicting id or timestamp.
    public var existingId: String?

    /// A failed item.
    public init(
        index: Int, message: String, type: String? = nil, id: String? = nil, field: String? = nil,
        code: String? = nil, existingId: String? = nil
    ) {
        self.index = index
        self.message = message
        self.type = type
        self.id = id
        self.field = field
        self.code = code
        self.existingId = existingId
    }

    enum CodingKeys: String, CodingKey {
        case index, message, type, id, field, code
        case existingId = "existing_id"
    }
}
