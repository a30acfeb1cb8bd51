import Foundation

/// api-v1 §15.1 field by field: what of an entity given back a server takes when the row it holds is at least as
/// new as the item. One rule for trendy-server and the in-memory model.
///
/// Feed it the entity's change entries in order (`add`): each field's time is that of the entry that last changed
/// it — a give-back's entry at the time it gave back (a member it named `pending` at the time it was written), any
/// other at its snapshot's `updated_at` — and every entry's time is a version the server still holds. Then `merge`
/// keeps the fields that changed at or after the item's time.
public struct GiveBackFieldMerge: Sendable {
    /// Members that are no field of the entity's version: never compared.
    public static let unversioned: Set<String> = ["id", "user_id", "created_at", "updated_at", "event_type"]

    /// Field → the time of the entry that last changed it.
    public private(set) var fieldTimes: [String: Int64] = [:]
    /// The times of the versions the entries hold.
    public private(set) var versions: Set<Int64> = []
    private var previous: [String: JSONValue]?

    public init() {}

    /// The next change entry of the entity: its snapshot (nil for a delete, after which the entity starts anew) and
    /// the time of the version it holds; for a give-back's entry, the members it wrote as `pending` and when it was
    /// written (those count at that time: a device's queued edit reached the server then, not with the version).
    public mutating func add(
        _ snapshot: [String: JSONValue]?, at time: Int64, pending: Set<String> = [], writtenAt: Int64 = .min
    ) {
        guard let snapshot else {
            self = GiveBackFieldMerge()
            return
        }
        versions.insert(time)
        let keys = Set(snapshot.keys).union(previous.map { Set($0.keys) } ?? [])
        for key in keys where previous?[key] != snapshot[key] {
            fieldTimes[key] = pending.contains(key) ? max(time, writtenAt) : time
        }
        previous = snapshot
    }

    /// `given` (every member of `held` named) with each field it changes that the server changed at or after
    /// `acknowledged` put back to `held`'s value; nil when no field is left to take, or when the server still holds
    /// the version of that time (what differs from it was changed on the device since, not lost). A field no entry
    /// shows counts at `rowTime`.
    public func merge(
        _ given: [String: JSONValue], over held: [String: JSONValue], acknowledged: Int64, rowTime: Int64
    ) -> [String: JSONValue]? {
        guard !versions.contains(acknowledged) else { return nil }
        let (members, taken) = keepingNewer(given, over: held, acknowledged: acknowledged, rowTime: rowTime)
        return taken ? members : nil
    }

    /// `given` with each field it changes that the server changed at or after `acknowledged` put back to `held`'s
    /// value, and whether any field is left to take.
    public func keepingNewer(
        _ given: [String: JSONValue], over held: [String: JSONValue], acknowledged: Int64, rowTime: Int64
    ) -> (members: [String: JSONValue], taken: Bool) {
        var members = given
        var taken = false
        for (key, value) in given where !Self.unversioned.contains(key) && value != held[key] {
            if acknowledged > (fieldTimes[key] ?? rowTime) {
                taken = true
            } else {
                members[key] = held[key] ?? .null
            }
        }
        return (members, taken)
    }
}
