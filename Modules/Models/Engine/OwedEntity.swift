import Foundation

/// An entity the engine owes a read-back (sync-engine R4): something made its local copy unreliable — a feed entry
/// skipped by a fence, a replayed answer, a duplicate confirmed as the same entity, a conflict, a discard — so once
/// nothing is queued for it, the engine reads it from the server and writes what it gets.
public struct OwedEntity: Sendable, Hashable {
    public var entityType: MutationEntityType
    public var id: String
    /// Changes each time the entity is made owed again: a read-back settles the debt only when the token it read
    /// is still the current one, so a debt incurred while its GET was in flight is not lost.
    public var token: Int64
    /// An entity whose queued mutations go first: the read-back waits for them (a child removed by its parent's
    /// local cascade waits for the parent's delete).
    public var after: String?

    public init(entityType: MutationEntityType, id: String, token: Int64 = 0, after: String? = nil) {
        self.entityType = entityType
        self.id = id
        self.token = token
        self.after = after
    }
}

/// Why an entity became owed; recorded for diagnostics only (`trendyctl status -v`, the proof's move counts).
public enum OwedReason: String, Sendable, Hashable, CaseIterable {
    /// A feed entry, bootstrap row or refreshed geofence skipped by a fence (R3, R4).
    case fenced
    /// A create or update answered from an idempotency record (R5).
    case replayed
    /// A create answered as a duplicate of the same entity (R5, S38).
    case duplicate
    /// An update refused as a uniqueness conflict (R6).
    case conflict
    /// A discarded mutation (R9).
    case discarded
    /// A difference found by `verify()` (R10).
    case verify
    /// Removed or changed by a parent's local cascade (a type's events and definitions, the references to a type or
    /// a geofence): owed after the parent's delete, in case that delete is discarded or withdrawn by a restore.
    case cascaded
}
