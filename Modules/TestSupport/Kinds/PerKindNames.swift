import Models

extension MutationEntityType {
    /// The value named for this kind: how the doubles count a generic call under its kind's seed name.
    func pick<Value>(_ event: Value, _ eventType: Value, _ geofence: Value, _ definition: Value) -> Value {
        switch self {
        case .event: event
        case .eventType: eventType
        case .geofence: geofence
        case .propertyDefinition: definition
        }
    }
}
