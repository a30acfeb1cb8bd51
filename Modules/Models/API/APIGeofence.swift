import Foundation

/// A geofence as the server returns it (api-v1 §4.4). Its fields are `GeofenceFields`.
public struct APIGeofence: ServerRecord {
    public var id: String
    public var userId: String
    public var fields: GeofenceFields
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Set by the network client when the answer was replayed (api-v1 §7); not part of the JSON.
    public var replayed = false

    public init(id: String, userId: String, fields: GeofenceFields, createdAt: Date? = nil, updatedAt: Date? = nil) {
        self.id = id
        self.userId = userId
        self.fields = fields
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension APIGeofence: ReplayableAnswer {}
