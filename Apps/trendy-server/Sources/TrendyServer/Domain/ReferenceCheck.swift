/// The types and geofences a request's events name, each looked up once: a batch of 500 events usually names one
/// type 500 times, and a batch writes events only, so an answer holds for the whole request.
final class ReferenceCheck {
    private var eventTypes: [String: Bool] = [:]
    private var geofences: [String: Bool] = [:]

    func eventType(_ id: String, _ request: APIRequest, _ db: any StorageTransaction) throws -> Bool {
        if let known = eventTypes[id] { return known }
        let exists = try EventTypes.objects.exists(id, user: request.userId, db)
        eventTypes[id] = exists
        return exists
    }

    func geofence(_ id: String, _ request: APIRequest, _ db: any StorageTransaction) throws -> Bool {
        if let known = geofences[id] { return known }
        let exists = try Geofences.objects.exists(id, user: request.userId, db)
        geofences[id] = exists
        return exists
    }
}
