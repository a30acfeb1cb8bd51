import Foundation
import Models

/// The field writes of the merge move (sync-engine R1–R3), for the check that no acknowledged field value is
/// lost: every value it writes is unique in the run, so the server's feed shows where each one went.
///
/// A write is *pending* on its device until the device's queue holds nothing for the entity any more; it is then
/// *acknowledged*: the server took it (a discard drops it instead). The verdict then reads the whole feed and
/// checks, for every field of an entity nobody deleted, discarded or restored:
/// - each acknowledged value appears in the field's history (no edit lost on the way);
/// - once the field moved on from a value, that value never comes back (no device re-sent a stale value, which is
///   what whole-state updates did to the other device's edit).
/// Together: a field's final value is the last acknowledged write of it in server order.
///
/// Across a restore of the server (sync-engine R15) the ledger keeps what the restore guarantees: a value the
/// backup held, or one a device held at the restore (given back), must still show; one no device held is lost with
/// the history and no longer checked. A value given back may lose to a later write that reached the restored server
/// first (api-v1 §15.1, newer only): the field's later history must then show that write. A value written after a
/// restore, or pending at one, may show twice: early, inside the row a device gives back, and again when its change
/// is pushed.
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
    /// When each acknowledged value was seen acknowledged (a count of `acknowledge` calls): the ledger's view of
    /// server order, to the step.
    private var acknowledgedAt: [Key: [JSONValue: Int]] = [:]
    private var acknowledgments = 0
    /// Values acknowledged after a backup and held by a device when the server went back to it, with the highest
    /// change id the restored server held and the values acknowledged by then.
    private var givenBack: [Key: [JSONValue: GivenBack]] = [:]
    /// Values pending on a device at a restore or written after one: a give-back carries the row as the device holds
    /// it, its queued edits included, so such a value may show on the server early, inside an older version, and
    /// again when its own change is pushed (R15).
    private var mayShowEarly: [Key: Set<JSONValue>] = [:]
    private var restores = 0

    struct GivenBack {
        let restorePoint: Int64
        let acknowledgedBefore: [JSONValue: Int]
    }

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
        if restores > 0 { mayShowEarly[key, default: []].insert(value) }
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

    /// One look at every device's queue (`queued`: the entities each still holds a change for): a write whose
    /// entity its device's queue no longer holds was taken by the server. The writes found taken in one look share
    /// one place in the ledger's order: which of them the server took first, the look cannot tell.
    mutating func acknowledge(queued: [String: Set<String>]) {
        acknowledgments += 1
        for (device, entities) in queued {
            for (key, value) in pending[device] ?? [:] where !entities.contains(key.entity) {
                acknowledged[key, default: []].insert(value)
                acknowledgedAt[key, default: [:]][value] = acknowledgments
                pending[device]?[key] = nil
            }
        }
    }

    /// The server went back to a backup taken when `atBackup` was what the ledger had seen acknowledged, and whose
    /// highest change id is `restorePoint`; `held` is every field value the devices hold now. Acknowledged since the
    /// backup: a value some device holds is given back and stays checked, one none holds is lost (R15) and is not.
    mutating func serverRestored(
        acknowledgedAtBackup atBackup: [Key: Set<JSONValue>], held: [Key: Set<JSONValue>], restorePoint: Int64
    ) {
        restores += 1
        for writes in pending.values {
            for (key, value) in writes { mayShowEarly[key, default: []].insert(value) }
        }
        for (key, values) in acknowledged {
            for value in values where atBackup[key]?.contains(value) != true {
                if held[key]?.contains(value) == true {
                    if givenBack[key]?[value] == nil {
                        givenBack[key, default: [:]][value] = GivenBack(
                            restorePoint: restorePoint, acknowledgedBefore: acknowledgedAt[key] ?? [:])
                    }
                } else {
                    acknowledged[key]?.remove(value)
                }
            }
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
                if tracked.contains(value) && seen.contains(value) && mayShowEarly[key]?.contains(value) != true {
                    return "\(key): change \(change) brought back \(value), which a later write had replaced: "
                        + "a stale value overwrote an acknowledged edit (history \(history.map { "\($0.value)" }))"
                }
                seen.insert(value)
            }
            for value in (acknowledged[key] ?? []).sorted(by: { "\($0)" < "\($1)" }) where !seen.contains(value) {
                if let given = givenBack[key]?[value], beaten(value, given, history: history) { continue }
                return "\(key): the server took \(value) (its device's queue let it go) but no change shows it: "
                    + "a lost edit (history \(history.map { "\($0.value)" }); \(diagnosis(of: key)))"
            }
        }
        return nil
    }

    /// The ledger's view of one field, for a failure's report: the order it saw values acknowledged in, and what it
    /// expects given back after which restore.
    private func diagnosis(of key: Key) -> String {
        let order = (acknowledgedAt[key] ?? [:]).sorted { $0.value < $1.value }.map { "\($0.key)@\($0.value)" }
        let given = (givenBack[key] ?? [:]).map { "\($0.key) after change \($0.value.restorePoint)" }.sorted()
        return "acknowledged in order \(order), given back \(given), restores \(restores)"
    }

    /// A value given back after a restore lost to a write the restored server took first: the field's history after
    /// the restore shows a value that was no older acknowledgment when the restore came (a write since, or one
    /// acknowledged no earlier than this one — found in the same look, it may be the newer — or one the ledger does
    /// not track).
    private func beaten(
        _ value: JSONValue, _ given: GivenBack, history: [(change: Int64, value: JSONValue)]
    ) -> Bool {
        let mine = given.acknowledgedBefore[value] ?? Int.max
        return history.contains { entry in
            guard entry.change > given.restorePoint, entry.value != value else { return false }
            guard let other = given.acknowledgedBefore[entry.value] else { return true }
            return other >= mine
        }
    }
}
