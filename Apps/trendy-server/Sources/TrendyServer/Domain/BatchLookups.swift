import Foundation
import Models

/// What the items of one batch ask the database before they insert — is the id taken, is the (type, timestamp) slot
/// held — read in two statements for the whole batch instead of two per item. Each insert is recorded, so a later item sees an earlier one of the same batch exactly
/// as it would in the database. An id or slot the batch was not read for (an item whose fields did not parse here)
/// is answered `.unknown`, and `Events.createOne` asks the database as it does for a single create.
final class BatchLookups {
    enum Answer<Value> {
        case known(Value?)
        case unknown
    }

    struct Slot: Hashable {
        let eventTypeId: String
        let timestamp: Int64
    }

    private var askedIds: Set<String> = []
    private var stored: [String: APIEvent] = [:]
    private var askedSlots: Set<Slot> = []
    private var holders: [Slot: String] = [:]

    init(_ items: [[String: JSONValue]], _ request: APIRequest, _ db: any StorageTransaction) throws {
        for members in items {
            if let id = members["id"]?.stringValue, UUIDText.isCanonical(id) { askedIds.insert(id.lowercased()) }
            var body = BodyReader(members: members, checkingText: false)
            let fields = EventFields.read(&body, creating: true)
            if let type = fields.eventTypeId, let timestamp = fields.timestamp {
                askedSlots.insert(Slot(eventTypeId: type, timestamp: timestamp))
            }
        }
        let ids = askedIds.sorted()
        if !ids.isEmpty {
            for event in try db.rows(
                sql: "SELECT \(Rows.eventColumns) FROM events WHERE id IN (\(Self.placeholders(ids.count)))",
                arguments: ids, Rows.event)
            {
                stored[event.id] = event
            }
        }
        let timestamps = Set(askedSlots.map(\.timestamp)).sorted()
        if !timestamps.isEmpty {
            try db.forEachRow(
                """
                SELECT id, event_type_id, timestamp FROM events WHERE user_id = ? AND source_type != 'healthkit'
                AND timestamp IN (\(Self.placeholders(timestamps.count)))
                """, [request.userId] + timestamps
            ) { row in
                let slot = Slot(
                    eventTypeId: row.withText(1) { String(decoding: $0, as: UTF8.self) }, timestamp: row.int64(2))
                if holders[slot] == nil { holders[slot] = row.withText(0) { String(decoding: $0, as: UTF8.self) } }
                return true
            }
        }
    }

    /// The event stored under `id`, whoever owns it.
    func storedEvent(_ id: String) -> Answer<APIEvent> {
        askedIds.contains(id) ? .known(stored[id]) : .unknown
    }

    /// The id of this user's non-HealthKit event at `slot`.
    func holder(_ slot: Slot) -> Answer<String> {
        askedSlots.contains(slot) ? .known(holders[slot]) : .unknown
    }

    /// An item of the batch wrote `event` at `slot`.
    func record(_ event: APIEvent, at slot: Slot?) {
        if askedIds.contains(event.id) { stored[event.id] = event }
        if let slot, event.sourceType != .healthkit, askedSlots.contains(slot), holders[slot] == nil {
            holders[slot] = event.id
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
