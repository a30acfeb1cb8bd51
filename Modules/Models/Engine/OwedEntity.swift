import Foundation

/// An entity the engine owes a read-back (sync-engine R4): something made its local copy unreliable — a feed entry
/// skipped by a fence, a replayed answer, a duplicate confirmed as the same entity, a conflict, a discard — so once
/// nothing is queued for it, the engine reads it from the server and writes what it gets.
public struct OwedEntity: Sendable, Hashable {
    /// The entity's kind.
    public var entityType: MutationEntityType
    /// The entity's id.
    public var id: String
    /// Changes each time the entity is made owed again: a read-back settles the debt only when the token it read
    /// is still the current one, so a debt incurred while its GET was in flight is not lost.
    public var token: Int64
    /// An entity whose queued mutations go first: the read-back waits for them (a child removed by its parent's
    /// local cascade waits for the parent's delete).
    public var after: String?
    /// Why it is owed, as the store recorded it: only `giveBack` changes what the engine does (R15); nil from a store
    /// that does not say.
    public var reason: OwedReason?

    /// A debt as a store lists it.
    public init(
        entityType: MutationEntityType, id: String, token: Int64 = 0, after: String? = nil, reason: OwedReason? = nil
    ) {
        self.entityType = entityType
        self.id = id
        self.token = token
        self.after = after
        self.reason = reason
    }
}

/// Why an entity became owed: for diagnostics (`trendyctl status -v`, the proof's move counts), and, for `giveBack`
/// alone, what is paid first.
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
    /// An update's answer would take a field of the version this device holds acknowledged away, and the give-back
    /// that settles it has not been answered yet (R15, S36). Until it is, nothing the server sends is written over the
    /// entity, nor recorded as acknowledged: the version goes back first (before the next pull), then is read back.
    /// Marking the entity owed for another reason keeps this one.
    case giveBack = "give_back"
}
