import Foundation
import Models

/// What the items of one batch ask the database before they insert — is the id taken, did this user create it
/// within the idempotency window, is the (type, timestamp) slot held — read in three statements for the whole batch
/// instead of three per item. Each insert is recorded, so a later item sees an earlier one of the same batch exactly
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
    private var earlierCreates: [String: String] = [:]
    private var askedSlots: Set<Slot> = []
    private var holders: [Slot: String] = [:]

    init(_ items: [[String: JSONValue]], _ request: APIRequest, _ db: any StorageTransaction) throws {
        for members in items {
            if let id = members["id"]?.stringValue, UUIDText.isCanonical(id) { askedIds.insert(id.lowercased()) }
            var body = BodyReader(members: members)
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
            try db.forEachRow(
                Self.earlierCreatesSQL(ids: ids.count), [request.userId, request.now - IdempotencyGuard.lifetime] + ids
            ) { row in
                if !row.isNull(1) {
                    earlierCreates[row.withText(0) { String(decoding: $0, as: UTF8.self) }] = row.withText(1) {
                        String(decoding: $0, as: UTF8.self)
                    }
                }
                return true
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

    /// The user's creates of `ids` within the idempotency window (arguments: user, oldest time, the ids), each id's
    /// oldest first so that the newest is the one kept. Ordered by entity first so that the plan walks
    /// `changes_by_entity` for the asked ids: `ORDER BY id` alone made SQLite walk all of the user's changes in
    /// `changes_by_user` order, a cost that grew with the account (seeding 1M events slowed from 5.5k to 1k
    /// events/s). `BatchLookupPlanTests` holds the plan.
    static func earlierCreatesSQL(ids: Int) -> String {
        """
        SELECT entity_id, data FROM changes WHERE user_id = ? AND operation = 'create' AND created_at > ?
        AND entity_id IN (\(placeholders(ids))) ORDER BY entity_id, id
        """
    }

    /// The event stored under `id`, whoever owns it.
    func storedEvent(_ id: String) -> Answer<APIEvent> {
        askedIds.contains(id) ? .known(stored[id]) : .unknown
    }

    /// The snapshot of this user's newest create of `id` within the idempotency window.
    func earlierCreate(_ id: String) -> Answer<String> {
        askedIds.contains(id) ? .known(earlierCreates[id]) : .unknown
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
