import Foundation
import HTTPTypes
import Models

/// `POST /api/v1/sync/give-back` (api-v1 §15.1): a device hands back what it holds as acknowledged, after the
/// server went back to a backup. The server takes an item only when it is newer, by the time the server first
/// acknowledged it, than what the server holds; several devices giving back one entity therefore converge on the
/// newest, whatever their order.
///
/// Each item runs through the entity's own create, update or delete (validation, cascades, the change log), inside
/// a savepoint: an item refused leaves nothing behind, and the others still apply.
enum GiveBacks {
    /// The route (api-v1 §15.1).
    static let path = "/api/v1/sync/give-back"

    /// Items in one request.
    static let maxItems = 500

    static func giveBack(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let items = try parse(request)
        var results: [GiveBackResult] = []
        results.reserveCapacity(items.count)
        // Parents before children: a type before its definitions, geofences and events; deletes after every
        // upsert, children first.
        let ordered = items.sorted { $0.rank < $1.rank }
        for item in ordered {
            try db.execute(sql: "SAVEPOINT give_back")
            do {
                let outcome = try apply(item, request, db)
                try db.execute(sql: "RELEASE SAVEPOINT give_back")
                results.append(GiveBackResult(entityType: item.type, id: item.id, outcome: outcome))
            } catch let refusal as APIError {
                try db.execute(sql: "ROLLBACK TO SAVEPOINT give_back")
                try db.execute(sql: "RELEASE SAVEPOINT give_back")
                results.append(
                    GiveBackResult(
                        entityType: item.type, id: item.id, outcome: .refused, detail: refusal.detail,
                        existingId: refusal.existingId))
            }
        }
        var response = try APIResponse.json(GiveBackResponse(results: results))
        response.observation = .giveBack(Dictionary(grouping: results, by: \.outcome).mapValues(\.count))
        return response
    }

    // MARK: - One item

    private static func apply(
        _ item: Item, _ request: APIRequest, _ db: any StorageTransaction
    ) throws
        -> GiveBackOutcome
    {
        let table = item.type.table
        let owner = try db.value(String.self, sql: "SELECT user_id FROM \(table) WHERE id = ?", arguments: [item.id])
        if let owner, owner != request.userId {
            throw APIError(.conflict, "the id belongs to another user")
        }
        let held = try db.value(Int64.self, sql: "SELECT updated_at FROM \(table) WHERE id = ?", arguments: [item.id])
        let deletedAt = try Tombstones.deletedAt(db, user: request.userId, type: item.type, id: item.id)
        let acknowledged = item.acknowledgedAt
        if item.deleted {
            if held != nil {
                // A delete ends the incarnation it finds and wins over the edits made of it since, as it does without
                // a restore (an edit of a deleted entity is refused); only an incarnation created after it (a create
                // of the id since, a restore of it, api-v1 §7) keeps the row.
                let began = try incarnation(item, table, request, db)
                if !GiveBackItem.deleteEnds(incarnationBegan: began, deletedAt: acknowledged) { return .kept }
                _ = try run(item.type.delete, item, request, db, parameters: ["id": item.id])
            }
            // Remember the delete at its first acknowledgment, so that an older version given back later is
            // refused; a later time already held stays.
            if (deletedAt ?? Int64.min) < acknowledged {
                try Tombstones.record(db, user: request.userId, type: item.type, id: item.id, at: acknowledged)
            }
            return held != nil || deletedAt == nil ? .applied : .kept
        }
        guard let data = item.data else { throw APIError(.badRequest, "data is required unless deleted") }
        if let held {
            // A PUT changes only the members it names: every member of the held object the given-back one lacks
            // (a field it holds as null) is named null, and an event's absent properties are `{}`.
            let stored = try run(item.type.get, item, request, db, parameters: ["id": item.id])
            let current = try JSONText.parse(stored.body).objectValue ?? [:]
            var members = data
            for key in current.keys where members[key] == nil {
                members[key] = key == "properties" ? .object([:]) : .null
            }
            // A queued edit the device holds is its own to push, after this: the server's value stays meanwhile.
            members = GiveBackFieldMerge.keepingPending(item.pending, in: members, held: current)
            let merge = try FieldTimes.merge(user: request.userId, type: item.type, entityId: item.id, db)
            if held >= acknowledged {
                // Newer as a whole, yet maybe not field by field: a write made since the restore to one field must
                // not keep out an older acknowledged edit of another (`GiveBackFieldMerge`).
                guard let merged = merge.merge(members, over: current, acknowledged: acknowledged, rowTime: held)
                else { return .kept }
                members = merged
            } else {
                // Older as a whole, yet a device's queued edit given back since counts when it was written.
                members = merge.keepingNewer(members, over: current, acknowledged: acknowledged, rowTime: held).members
            }
            let before = try ChangeLog.latestChange(user: request.userId, db)
            _ = try run(item.type.update, item, request, db, body: members, parameters: ["id": item.id])
            try stamp(item, at: max(held, acknowledged), pending: [], after: before, request, db)
            return .applied
        }
        // The same rule from the other side: a version of an incarnation created at or before the delete is of the
        // entity the delete ended, whenever it was acknowledged (an edit a server that had lost the delete took).
        if let deletedAt, GiveBackItem.deleteEnds(incarnationBegan: item.incarnationBegan, deletedAt: deletedAt) {
            return .deleted
        }
        let before = try ChangeLog.latestChange(user: request.userId, db)
        var parameters = ["id": item.id]
        if item.type == .propertyDefinition {
            guard let parent = data["event_type_id"]?.stringValue else {
                throw APIError(.badRequest, "a property definition needs its event_type_id")
            }
            parameters = ["id": parent.lowercased()]
        }
        _ = try run(item.type.create, item, request, db, body: data, parameters: parameters)
        try stamp(item, at: acknowledged, pending: item.pending, after: before, request, db)
        return .applied
    }

    /// Runs a route handler on the item, as if the device had sent that request now.
    private static func run(
        _ handler: Routes.Handler, _ item: Item, _ request: APIRequest, _ db: any StorageTransaction,
        body: [String: JSONValue]? = nil, parameters: [String: String]
    ) throws -> APIResponse {
        let json = body.map { JSONValue.object($0) }
        let inner = APIRequest(
            userId: request.userId, now: request.now, body: json.map { Array(JSONText.string($0).utf8) } ?? [],
            parsedBody: json, query: [:], parameters: parameters, dialect: request.dialect,
            pageBytes: request.pageBytes)
        return try handler(inner, db)
    }

    /// When the held row's incarnation began: the earlier of its `created_at` (a create's time, or the creation time
    /// a give-back brought) and its latest create entry's time (a given-back create's at the time it was given back
    /// with, `given_back_changes`). A row a give-back created without a `created_at` (an event) holds the
    /// give-back's own time there; its entry holds the true one.
    private static func incarnation(
        _ item: Item, _ table: String, _ request: APIRequest, _ db: any StorageTransaction
    ) throws -> Int64 {
        let createdAt = try db.value(
            Int64.self, sql: "SELECT created_at FROM \(table) WHERE id = ?", arguments: [item.id])
        let lastCreate = try db.value(
            Int64.self,
            sql: """
                SELECT COALESCE(g.acknowledged_at, c.created_at) FROM changes c
                LEFT JOIN given_back_changes g ON g.change_id = c.id
                WHERE c.user_id = ? AND c.entity_id = ? AND c.operation = 'create' ORDER BY c.id DESC LIMIT 1
                """, arguments: [request.userId, item.id])
        return min(createdAt ?? .max, lastCreate ?? .max)
    }

    /// The row keeps the time it was first acknowledged, or its own later one when only some fields were taken (and
    /// the creation time it was given back with); the change entries the write appended carry the row as stored,
    /// and are remembered with the item's time, the time of the fields they changed (`fieldTimes`), and the
    /// `pending` members they wrote.
    private static func stamp(
        _ item: Item, at time: Int64, pending: [String], after before: Int64, _ request: APIRequest,
        _ db: any StorageTransaction
    ) throws {
        let table = item.type.table
        try db.execute(sql: "UPDATE \(table) SET updated_at = ? WHERE id = ?", arguments: [time, item.id])
        if let created = item.data?["created_at"]?.stringValue.flatMap(RFC3339.milliseconds(from:)) {
            try db.execute(sql: "UPDATE \(table) SET created_at = ? WHERE id = ?", arguments: [created, item.id])
        }
        let written = try db.values(
            Int64.self, sql: "SELECT id FROM changes WHERE user_id = ? AND entity_id = ? AND id > ?",
            arguments: [request.userId, item.id, before])
        guard !written.isEmpty else { return }
        let stored = try run(item.type.get, item, request, db, parameters: ["id": item.id])
        // As every change entry: without the type a GET embeds, each cleared field an explicit null (api-v1 §6.3,
        // §3.6), or a device that applies the entry would keep the value the given-back version cleared.
        let snapshot = try ChangeSnapshot.data(
            try JSONText.parse(stored.body), of: item.type, explicitNulls: request.dialect.snapshotsCarryNulls)
        let pendingText: String? =
            pending.isEmpty ? nil : JSONText.string(.array(pending.sorted().map(JSONValue.string)))
        for change in written {
            try db.execute(
                sql: "UPDATE changes SET data = ? WHERE id = ?", arguments: [JSONText.string(snapshot), change])
            try db.execute(
                sql: "INSERT INTO given_back_changes (change_id, acknowledged_at, pending) VALUES (?, ?, ?)",
                arguments: [change, item.acknowledgedAt, pendingText])
        }
    }

    // MARK: - The body

    struct Item {
        let type: MutationEntityType
        let id: String
        let acknowledgedAt: Int64
        let deleted: Bool
        let data: [String: JSONValue]?
        /// Members of `data` holding the device's queued edits (`GiveBackItem.pending`).
        let pending: [String]

        /// `GiveBackItem.incarnationBegan(createdAt:acknowledgedAt:)` of this item.
        var incarnationBegan: Int64 {
            GiveBackItem.incarnationBegan(
                createdAt: data?["created_at"]?.stringValue.flatMap(RFC3339.milliseconds(from:)),
                acknowledgedAt: acknowledgedAt)
        }

        /// `GiveBackItem.applicationRank`: the one order of api-v1 §15.1.
        var rank: Int { GiveBackItem.applicationRank(of: type, deleted: deleted) }
    }

    private static func parse(_ request: APIRequest) throws(APIError) -> [Item] {
        let body = try BodyReader.object(of: request, envelope: true)
        guard case .value(let list) = body.raw("items"), let entries = list.arrayValue else {
            throw APIError(.badRequest, "items must be an array")
        }
        guard entries.count <= maxItems else {
            throw APIError(.badRequest, "items holds \(entries.count) entries; at most \(maxItems) a request")
        }
        var items: [Item] = []
        var errors: [FieldError] = []
        for (index, entry) in entries.enumerated() {
            let field = "items[\(index)]"
            guard let members = entry.objectValue,
                let type = members["entity_type"]?.stringValue.flatMap(MutationEntityType.init(rawValue:)),
                let id = members["id"]?.stringValue, UUIDText.isCanonical(id),
                let acknowledged = members["acknowledged_at"]?.stringValue.flatMap(RFC3339.milliseconds(from:))
            else {
                errors.append(
                    FieldError(
                        field: field, message: "\(field) needs entity_type, a UUID id and acknowledged_at (RFC 3339)",
                        code: "invalid"))
                continue
            }
            let deleted = members["deleted"]?.boolValue ?? false
            let data = members["data"]?.objectValue
            var pending: [String] = []
            if let listed = members["pending"], listed != .null {
                guard let names = listed.arrayValue?.compactMap(\.stringValue), names.count == listed.arrayValue?.count
                else {
                    errors.append(
                        FieldError(
                            field: field + ".pending", message: "\(field).pending must be an array of member names",
                            code: "invalid"))
                    continue
                }
                pending = names
            }
            if !deleted {
                guard let data, data["id"]?.stringValue?.lowercased() == id.lowercased() else {
                    errors.append(
                        FieldError(
                            field: field + ".data", message: "\(field).data must be the entity, with its id",
                            code: "invalid"))
                    continue
                }
                for (key, problem) in TextLimit.problems(in: data) {
                    errors.append(
                        FieldError(field: "\(field).data.\(key)", message: "\(key) \(problem)", code: problem.code))
                }
            }
            items.append(
                Item(
                    type: type, id: id.lowercased(), acknowledgedAt: acknowledged, deleted: deleted, data: data,
                    pending: pending))
        }
        guard errors.isEmpty else { throw APIError.validation(errors) }
        return items
    }
}

extension MutationEntityType {
    /// The server's table of this kind.
    var table: String {
        switch self {
        case .eventType: "event_types"
        case .event: "events"
        case .propertyDefinition: "property_definitions"
        case .geofence: "geofences"
        }
    }

    fileprivate var get: Routes.Handler {
        switch self {
        case .eventType: EventTypes.objects.get
        case .event: Events.get
        case .propertyDefinition: PropertyDefinitions.objects.get
        case .geofence: Geofences.objects.get
        }
    }

    fileprivate var create: Routes.Handler {
        switch self {
        case .eventType: EventTypes.create
        case .event: Events.create
        case .propertyDefinition: PropertyDefinitions.create
        case .geofence: Geofences.create
        }
    }

    fileprivate var update: Routes.Handler {
        switch self {
        case .eventType: EventTypes.update
        case .event: Events.update
        case .propertyDefinition: PropertyDefinitions.update
        case .geofence: Geofences.update
        }
    }

    var delete: Routes.Handler {
        switch self {
        case .eventType: EventTypes.delete
        case .event: Events.delete
        case .propertyDefinition: PropertyDefinitions.delete
        case .geofence: Geofences.delete
        }
    }
}
