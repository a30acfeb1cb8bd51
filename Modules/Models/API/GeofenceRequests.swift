/// Body of `POST /api/v1/geofences` (api-v1 §5.5). The client always sends `id`, `is_active` and both notify
/// flags; it does not send `ios_region_identifier` on create.
public struct CreateGeofenceRequest: CreateBody {
    public var id: String?
    public var fields: GeofenceFields

    public init(id: String?, fields: GeofenceFields) {
        self.id = id
        self.fields = fields.forCreate
    }

    /// A body of these fields; the notify flags off.
    public init(
        id: String?, name: String, latitude: Double, longitude: Double, radius: Double,
        eventTypeEntryId: String? = nil, eventTypeExitId: String? = nil, isActive: Bool = true
    ) {
        self.init(
            id: id,
            fields: GeofenceFields(
                name: name, latitude: latitude, longitude: longitude, radius: radius,
                eventTypeEntryId: eventTypeEntryId,
                eventTypeExitId: eventTypeExitId, isActive: isActive))
    }

    /// The create body for a local geofence (sync-engine §1.6).
    public init(_ geofence: Geofence) { self.init(id: geofence.id, fields: geofence.fields) }
}

/// Body of `PUT /api/v1/geofences/{id}`: a partial update (api-v1 §3.5) — a field it does not set stays as it is,
/// the clearable references in `cleared` are sent as `null`.
public typealias UpdateGeofenceRequest = FieldPatch<GeofenceFields>

extension FieldPatch where Fields == GeofenceFields {
    /// Every field of a local geofence, unset references as `null`; `ios_region_identifier` is the stored value,
    /// else the geofence id: the state a patch is taken from (sync-engine R1).
    public init(_ geofence: Geofence) {
        var fields = geofence.fields
        fields.iosRegionIdentifier = fields.iosRegionIdentifier ?? geofence.id
        self.init(everyFieldOf: fields)
    }
}
