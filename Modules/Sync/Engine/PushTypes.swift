import Foundation
import Models

/// The push in progress (sync-engine §3.4, §4.4).
struct PushRun {
    let total: Int
    /// Push-set mutations whose outcome this round recorded (progress `synced`).
    var recorded = 0
    /// Entity ids of live creates of the push set not completed yet.
    var openCreates: Set<String>
    /// Push-set mutations not yet sent or deferred: deferred when the push stops early.
    var untouched: Set<String>
    /// The breaker is half-open: the next request's answer decides it.
    var probe: Bool
    /// Mutation id → the type an event update of the push set moves its event to (its patch sets `event_type_id`),
    /// while the update is live and not completed this round. A type delete waits for the updates that may move events
    /// away from it (R7): sent first, the delete's cascade would take them on the server.
    var openEventUpdates: [String: String] = [:]
}

/// What is written for one mutation once its answer is known (sync-engine §4.6).
enum Resolution: Equatable {
    case completed
    /// Completed, but the answer proves nothing about the row today (a replay, a duplicate of the same entity): the
    /// entity is read back (R5). A replayed create still proves that the server acknowledged the entity, and when:
    /// `acknowledged` records it (R15), so that a server restored before the read-back gets it back.
    case completedOwed(OwedReason, acknowledged: AcknowledgedVersion? = nil)
    /// A HealthKit match on the server: the mutation completes and the local event takes the server's id.
    case completedAs(APIEvent)
    case deadLetter(String)
    /// A uniqueness conflict on an update: a dead letter now, and the entity is read back (R6).
    case conflict(String)
    case counted(String)
    /// 429, in flight, a round-level stop: nothing is written.
    case untouched
}

/// What one answer does to the breaker (sync-engine §6.1).
enum BreakerEffect: Equatable {
    case none
    /// Counter 0, hint cleared, half-open closed; a 2xx also resets the multiplier.
    case reset(success: Bool)
    case rateLimited(retryAfter: TimeInterval?)
}

/// The push stopped because the breaker tripped: only the push ends; the pull still runs.
struct BreakerTripped: Error {}

/// A write was refused because the server no longer holds the feed position it was made from (api-v1 §6.7): the
/// server went back to a backup. The round gives back and bootstraps, then pushes again (sync-engine R15).
struct FeedWentBack: Error {}

/// A decoded payload, ready to send (sync-engine §1.6: the client re-encodes it into the stored bytes).
enum PushRequest {
    case createEventType(CreateEventTypeRequest)
    case createGeofence(CreateGeofenceRequest)
    case createPropertyDefinition(CreatePropertyDefinitionRequest)
    case createEvent(CreateEventRequest)
    case updateEventType(UpdateEventTypeRequest)
    case updateEvent(UpdateEventRequest)
    case updateGeofence(UpdateGeofenceRequest)
    case updatePropertyDefinition(UpdatePropertyDefinitionRequest)
    case delete

    /// Decodes the stored payload into its typed request; throws for a payload that does not decode.
    init(_ mutation: PendingMutation) throws {
        func decode<Request: Decodable>(_ type: Request.Type) throws -> Request {
            guard let payload = mutation.payload else { throw PayloadMissing() }
            return try JSONCoding.decode(type, from: payload)
        }
        switch (mutation.operation, mutation.entityType) {
        case (.delete, _): self = .delete
        case (.create, .eventType): self = .createEventType(try decode(CreateEventTypeRequest.self))
        case (.create, .geofence): self = .createGeofence(try decode(CreateGeofenceRequest.self))
        case (.create, .propertyDefinition):
            self = .createPropertyDefinition(try decode(CreatePropertyDefinitionRequest.self))
        case (.create, .event): self = .createEvent(try decode(CreateEventRequest.self))
        case (.update, .eventType): self = .updateEventType(try decode(UpdateEventTypeRequest.self))
        case (.update, .event): self = .updateEvent(try decode(UpdateEventRequest.self))
        case (.update, .geofence): self = .updateGeofence(try decode(UpdateGeofenceRequest.self))
        case (.update, .propertyDefinition):
            self = .updatePropertyDefinition(try decode(UpdatePropertyDefinitionRequest.self))
        }
    }

    struct PayloadMissing: Error, CustomStringConvertible {
        var description: String { "the mutation has no payload" }
    }

    struct NotASingleRequest: Error, CustomStringConvertible {
        var description: String { "event creates are sent in batches" }
    }
}
