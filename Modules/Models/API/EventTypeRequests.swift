/// Body of `POST /api/v1/event-types` (api-v1 §5.2). The client always sends `id`.
public struct CreateEventTypeRequest: CreateBody {
    public var id: String?
    public var fields: EventTypeFields

    public init(id: String?, fields: EventTypeFields) {
        self.id = id
        self.fields = fields.forCreate
    }

    /// A body of these fields.
    public init(id: String?, name: String, color: String, icon: String) {
        self.init(id: id, fields: EventTypeFields(name: name, color: color, icon: icon))
    }

    /// The create body for a local event type (sync-engine §1.6).
    public init(_ eventType: EventType) { self.init(id: eventType.id, fields: eventType.fields) }
}

/// Body of `PUT /api/v1/event-types/{id}`: a partial update (api-v1 §3.5) — a field it does not set stays as it is
/// on the server. None of an event type's fields is clearable.
public typealias UpdateEventTypeRequest = FieldPatch<EventTypeFields>

extension FieldPatch where Fields == EventTypeFields {
    /// A patch that sets what is given.
    public init(name: String? = nil, color: String? = nil, icon: String? = nil) {
        self.init()
        (self.name, self.color, self.icon) = (name, color, icon)
    }

    /// Every field of a local event type: the state a patch is taken from (sync-engine R1).
    public init(_ eventType: EventType) { self.init(everyFieldOf: eventType.fields) }
}
