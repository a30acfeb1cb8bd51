import Foundation

/// An event type as the server returns it (api-v1 §4.1). Its fields are `EventTypeFields`.
public struct APIEventType: ServerRecord {
    public var id: String
    public var userId: String
    public var fields: EventTypeFields
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    public init(id: String, userId: String, fields: EventTypeFields, createdAt: Date? = nil, updatedAt: Date? = nil) {
        self.id = id
        self.userId = userId
        self.fields = fields
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// A type of these fields.
    public init(
        id: String, userId: String, name: String, color: String, icon: String, createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.init(
            id: id, userId: userId, fields: EventTypeFields(name: name, color: color, icon: icon),
            createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension APIEventType: ReplayableAnswer {}
