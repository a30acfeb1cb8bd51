/// Writing complete REST objects onto local rows (bootstrap, geofence refresh; sync-engine §5.2, §4.11).
///
/// A REST object is complete: an absent optional means nil, absent `properties` means `[:]`. Timestamps the
/// server did not send keep their local value. The caller's upsert sets `sync_status`.
extension Event {
    /// Takes every field of the server's event; the id and `sync_status` stay.
    public mutating func replaceFields(with api: APIEvent) {
        eventTypeId = api.eventTypeId
        timestamp = api.timestamp
        notes = api.notes
        isAllDay = api.isAllDay
        sourceType = api.sourceType
        details = api.details
        properties = api.properties
    }
}

extension EventType {
    /// Takes every field of the server's type, and its creation time when it sent one.
    public mutating func replaceFields(with api: APIEventType) {
        fields = api.fields
        if let created = api.createdAt { createdAt = created }
    }
}

extension Geofence {
    /// Takes every field of the server's geofence, and its creation time when it sent one.
    public mutating func replaceFields(with api: APIGeofence) {
        fields = api.fields
        if let created = api.createdAt { createdAt = created }
    }
}

extension PropertyDefinition {
    /// Takes every field of the server's definition, its type, and its times when it sent them.
    public mutating func replaceFields(with api: APIPropertyDefinition) {
        eventTypeId = api.eventTypeId
        fields = api.fields
        if let created = api.createdAt { createdAt = created }
        if let updated = api.updatedAt { updatedAt = updated }
    }
}
