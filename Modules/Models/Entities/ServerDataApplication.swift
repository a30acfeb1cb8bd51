/// Writing complete REST objects onto local rows (bootstrap, geofence refresh; sync-engine §5.2, §4.11).
///
/// A REST object is complete: an absent optional means nil, absent `properties` means `[:]`. Timestamps the
/// server did not send keep their local value. The caller's upsert sets `sync_status`.
extension Event {
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
    public mutating func replaceFields(with api: APIEventType) {
        fields = api.fields
        if let created = api.createdAt { createdAt = created }
    }
}

extension Geofence {
    public mutating func replaceFields(with api: APIGeofence) {
        fields = api.fields
        if let created = api.createdAt { createdAt = created }
    }
}

extension PropertyDefinition {
    public mutating func replaceFields(with api: APIPropertyDefinition) {
        eventTypeId = api.eventTypeId
        fields = api.fields
        if let created = api.createdAt { createdAt = created }
        if let updated = api.updatedAt { updatedAt = updated }
    }
}
