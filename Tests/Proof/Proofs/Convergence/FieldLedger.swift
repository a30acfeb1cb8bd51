import Foundation
import Models

/// The field writes of the merge move (sync-engine R1–R3, issue 25), for the check that no acknowledged field value is
/// lost: every value it writes is unique in the run, so the server's feed shows where each one went.
///
/// A write is *pending* on its device until the device's queue holds nothing for the entity any more; it is then
/// *acknowledged*: the server took it (a discard drops it instead). The verdict then reads the whole feed and
/// checks, for every field of an entity nobody deleted, discarded or restored:
/// - each acknowledged value appears in the field's history (no edit lost on the way);
/// - once the field moved on from a value, that value never comes back (no device re-sent a stale value, which is
///   what whole-state updates did to the other device's edit).
/// Together: a field's final value is the last acknowledged write of it in server order.
struct FieldLedger {
    struct Key: Hashable, Comparable, CustomStringConvertible {
        let entity: String
        /// A top-level key of the entity's JSON, or `properties.<key>` for one event property.
        let field: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.entity, lhs.field) < (rhs.entity, rhs.field) }
        var description: String { "\(field) of \(entity)" }
    }

    /// By device: the last value it wrote to each field and has not seen go through yet.
    private(set) var pending: [String: [Key: JSONValue]] = [:]
    /// The values the server took, by field.
    private(set) var acknowledged: [Key: Set<JSONValue>] = [:]
    private var written: [Key: Set<JSONValue>] = [:]
    private var counter = 0

    /// A string no other write of the run holds.
    mutating func uniqueText() -> String {
        counter += 1
        return "fv-\(counter)"
    }

    /// A number no other write of the run holds, within a geofence's radius range (50–10 000 m). Never whole: the
    /// other moves write whole radii (50–4999 m), and a value two writes share cannot tell which of them a change
    /// entry carries (seed 1514 once read a later write of 127 as an earlier one brought back).
    mutating func uniqueNumber() -> Double {
        counter += 1
        return Double(100 + counter % 9_000) + 0.5 + Double(counter / 9_000) / 100
    }

    mutating func wrote(_ value: JSONValue, to key: Key, on device: String) {
        pending[device, default: [:]][key] = value
        written[key, default: []].insert(value)
    }

    /// Another move wrote `field` on `device` with a value that need not be unique: what was pending there for it
    /// may now never reach the server, and is not checked.
    mutating func superseded(_ field: String, of entity: String, on device: String) {
        pending[device]?[Key(entity: entity, field: field)] = nil
    }

    /// A discard of the entity's change on `device`: its writes may never reach the server.
    mutating func dropPending(of entity: String, on device: String) {
        pending[device] = pending[device]?.filter { $0.key.entity != entity }
    }

    /// The device's queue holds nothing for these writes' entities any more: the server took them.
    mutating func acknowledge(on device: String, queued: Set<String>) {
        guard let writes = pending[device] else { return }
        for (key, value) in writes where !queued.contains(key.entity) {
            acknowledged[key, default: []].insert(value)
            pending[device]?[key] = nil
        }
    }

    /// The value of `field` in an entity's change data (nil when absent).
    static func value(of field: String, in data: [String: JSONValue]) -> JSONValue? {
        guard field.hasPrefix("properties.") else { return data[field] }
        let property = String(field.dropFirst("properties.".count))
        guard let properties = data["properties"]?.objectValue else { return nil }
        return properties[property] ?? .null
    }

    /// The first lost or stale field value in the server's feed, skipping entities `excluded` names.
    func firstViolation(feed: [ChangeEntry], excluded: (String) -> Bool) -> String? {
        var rows: [String: [ChangeEntry]] = [:]
        for entry in feed { rows[entry.entityId.lowercased(), default: []].append(entry) }
        let keys = Set(written.keys).sorted()
        for key in keys where !excluded(key.entity) {
            var history: [(change: Int64, value: JSONValue)] = []
            for row in rows[key.entity] ?? [] {
                guard case .object(let data)? = row.data, let value = Self.value(of: key.field, in: data) else {
                    continue
                }
                if history.last?.value != value { history.append((row.id, value)) }
            }
            let tracked = written[key] ?? []
            var seen: Set<JSONValue> = []
            for (change, value) in history {
                if tracked.contains(value) && seen.contains(value) {
                    return "\(key): change \(change) brought back \(value), which a later write had replaced: "
                        + "a stale value overwrote an acknowledged edit (history \(history.map { "\($0.value)" }))"
                }
                seen.insert(value)
            }
            for value in (acknowledged[key] ?? []).sorted(by: { "\($0)" < "\($1)" }) where !seen.contains(value) {
                return "\(key): the server took \(value) (its device's queue let it go) but no change shows it: "
                    + "a lost edit (history \(history.map { "\($0.value)" }))"
            }
        }
        return nil
    }
}
