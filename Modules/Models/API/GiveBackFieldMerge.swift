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
    /// The time of the first entry (since the last delete): a field none of the entries shows was absent since then.
    private var firstTime: Int64?
    private var previous: [String: JSONValue]?

    /// A merge that has seen no entry yet.
    public init() {}

    /// A merge that goes on from `checkpoint`, what another one had learnt (``checkpoint``); nil when it is not one
    /// (a database edited by hand): the caller then starts afresh from the entries it still holds.
    public init?(resuming checkpoint: JSONValue) {
        guard let members = checkpoint.objectValue, let times = members[Self.timesKey]?.objectValue,
            let previous = members[Self.previousKey]
        else { return nil }
        for (field, time) in times {
            guard case .number(let value) = time, let milliseconds = Int64(exactly: value) else { return nil }
            fieldTimes[field] = milliseconds
        }
        switch members[Self.firstKey] {
        case .number(let value)?:
            guard let milliseconds = Int64(exactly: value) else { return nil }
            firstTime = milliseconds
        case .null?, nil: firstTime = nil
        default: return nil
        }
        switch previous {
        case .object(let fields): self.previous = fields
        case .null: self.previous = nil
        default: return nil
        }
    }

    /// What this merge learnt from its entries, for compaction to keep in place of the entries it removes
    /// (api-v1 §6.8): each field's time, the first entry's, and the last snapshot, against which the next entry is
    /// compared. The versions the entries held are left out, so that it stays the size of one entity however often
    /// it was edited: a version compaction removed no longer counts as held.
    public var checkpoint: JSONValue {
        .object([
            Self.timesKey: .object(fieldTimes.mapValues { .number(Double($0)) }),
            Self.firstKey: firstTime.map { .number(Double($0)) } ?? .null,
            Self.previousKey: previous.map(JSONValue.object) ?? .null,
        ])
    }

    private static let timesKey = "field_times"
    private static let firstKey = "first_time"
    private static let previousKey = "previous"

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
        if firstTime == nil { firstTime = time }
        let current = Self.fields(of: snapshot)
        let keys = Set(current.keys).union(previous.map { Set($0.keys) } ?? [])
        for key in keys where previous?[key] != current[key] {
            fieldTimes[key] = Self.names(key, in: pending) ? max(time, writtenAt) : time
        }
        previous = current
    }

    /// An object's versioned fields: its members, each event property its own field (`properties.<key>`), as a
    /// push patches them one by one (`properties_patch`).
    static func fields(of object: [String: JSONValue]) -> [String: JSONValue] {
        var fields = object
        if let properties = fields.removeValue(forKey: Self.properties) {
            for (key, value) in properties.objectValue ?? [:] { fields[Self.properties + "." + key] = value }
        }
        return fields
    }

    /// Whether `pending` names the field `key`: itself, or for a property, the whole `properties` member.
    static func names(_ key: String, in pending: Set<String>) -> Bool {
        pending.contains(key) || (key.hasPrefix(Self.properties + ".") && pending.contains(Self.properties))
    }

    static let properties = "properties"

    /// `members` (a given-back object, every member of `held` named) with each `pending` field put back to `held`'s
    /// value: on a row the server holds, a device's queued edit is its own to push; the server's value stays.
    public static func keepingPending(
        _ pending: [String], in members: [String: JSONValue], held: [String: JSONValue]
    ) -> [String: JSONValue] {
        var members = members
        for name in pending {
            if name.hasPrefix(properties + "."), var given = members[properties]?.objectValue {
                let key = String(name.dropFirst(properties.count + 1))
                given[key] = held[properties]?.objectValue?[key]
                members[properties] = .object(given)
            } else if members[name] != nil {
                members[name] = held[name] ?? (name == properties ? .object([:]) : .null)
            }
        }
        return members
    }

    /// `given` (every member of `held` named) with each field it changes that the server changed at or after
    /// `acknowledged` put back to `held`'s value; nil when no field is left to take, or when the server still holds
    /// the version of that time (what differs from it was changed on the device since, not lost). A field no entry
    /// shows counts at the first entry's time, or without entries at `rowTime`.
    public func merge(
        _ given: [String: JSONValue], over held: [String: JSONValue], acknowledged: Int64, rowTime: Int64
    ) -> [String: JSONValue]? {
        guard !versions.contains(acknowledged) else { return nil }
        let (members, taken) = keepingNewer(given, over: held, acknowledged: acknowledged, rowTime: rowTime)
        return taken ? members : nil
    }

    /// When the field `key` last changed: its entry's time; for one no entry shows, the first entry's (it was
    /// absent from then on), or without entries the row's.
    func time(of key: String, rowTime: Int64) -> Int64 { fieldTimes[key] ?? firstTime ?? rowTime }

    /// `given` with each field it changes that the server changed at or after `acknowledged` put back to `held`'s
    /// value, and whether any field is left to take.
    public func keepingNewer(
        _ given: [String: JSONValue], over held: [String: JSONValue], acknowledged: Int64, rowTime: Int64
    ) -> (members: [String: JSONValue], taken: Bool) {
        var members = given
        var taken = false
        for (key, value) in given
        where !Self.unversioned.contains(key) && key != Self.properties && value != held[key] {
            if acknowledged > time(of: key, rowTime: rowTime) {
                taken = true
            } else {
                members[key] = held[key] ?? .null
            }
        }
        if let properties = given[Self.properties] {
            // Property by property: a write since to one key keeps out no older acknowledged value of another.
            let mine = properties.objectValue ?? [:]
            let theirs = held[Self.properties]?.objectValue ?? [:]
            var merged = theirs
            for key in Set(mine.keys).union(theirs.keys) where mine[key] != theirs[key] {
                guard acknowledged > time(of: Self.properties + "." + key, rowTime: rowTime) else { continue }
                taken = true
                merged[key] = mine[key]
            }
            members[Self.properties] = .object(merged)
        }
        return (members, taken)
    }
}
