import Foundation
import Models

/// What a failed push request does to its mutation, its round and the breaker (sync-engine §4.5, §4.6), decided from
/// the class of the failure and the mutation's operation alone. `SyncEngine.resolve` carries it out; the decisions
/// live here so that each is tested on its own (`RulesTests`).
enum PushOutcome: Equatable {
    /// The round ends; nothing is written for the mutation.
    case stop(RoundStop)
    /// The write was refused unapplied: the server no longer holds the feed position it was made from (api-v1 §6.7).
    case feedWentBack
    /// A 429: counted by the breaker (sync-engine §6.1); the mutation is untouched.
    case rateLimited(retryAfter: TimeInterval?)
    /// The mutation is written as `resolution`, and the breaker takes `effect`.
    case resolved(Resolution, BreakerEffect)
    /// A create answered as a duplicate: which entity holds the name, timestamp or id decides
    /// (`duplicateCreate(of:existingId:message:)`).
    case confirmDuplicate(existingId: String?, message: String)

    /// sync-engine §4.6's table.
    static func of(_ failure: PushErrorClass, operation: MutationOperation) -> PushOutcome {
        switch failure {
        case .cancelled: .stop(.cancelled)
        case .transport(let message): .stop(.offline(message))
        case .auth: .stop(.authRequired)
        case .feedWentBack: .feedWentBack
        case .rateLimited(let retryAfter): .rateLimited(retryAfter: retryAfter)
        case .inFlight: .resolved(.untouched, .none)
        case .alreadyGone: .resolved(.completed, .reset(success: false))
        case .gone: .resolved(.deadLetter("not found on server"), .reset(success: false))
        case .failure(let message): .resolved(.counted(message), .reset(success: false))
        case .duplicate(let existingId, let message):
            switch operation {
            // A delete's entity is gone either way.
            case .delete: .resolved(.completed, .reset(success: false))
            // R6: a name another entity holds; the entity is read back.
            case .update: .resolved(.conflict("conflict: \(message)"), .reset(success: false))
            case .create: .confirmDuplicate(existingId: existingId, message: message)
            }
        }
    }

    /// A create answered as a duplicate (sync-engine §4.6) that names the entity holding it: the same entity completes,
    /// read back because the stored entity may differ from this create (R5); another entity makes it a dead letter
    /// naming that entity, so the user can merge into it (`types merge`). Nil when the answer names none: whether the
    /// server holds this entity decides (`duplicateCreate(exists:message:)`).
    static func duplicateCreate(of entityId: String, existingId: String?, message: String) -> Resolution? {
        guard let existingId else { return nil }
        if existingId == entityId.lowercased() { return .completedOwed(.duplicate) }
        return .deadLetter("conflict: \(message)\(PendingMutation.heldOnServerMarker)\(existingId)")
    }

    /// A duplicate answer that names no entity, once the server said whether it holds this one.
    static func duplicateCreate(exists: Bool, message: String) -> Resolution {
        exists ? .completedOwed(.duplicate) : .deadLetter("conflict: \(message)")
    }
}
