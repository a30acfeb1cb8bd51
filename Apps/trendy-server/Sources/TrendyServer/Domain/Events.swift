import Foundation
import HTTPTypes
import Models

/// `/api/v1/events` (api-v1 §5.3).
enum Events {
    static let sourceTypes = EventSourceType.allCases.map(\.rawValue)
    static let futureTolerance: Int64 = 60_000

    // MARK: Reads

    /// Offset pages, or (ours) keyset pages: a listing with neither `after` nor `offset` starts one, and every page
    /// with more after it carries `X-Next-After` (api-v1 §5.3.1).
    static func list(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let limit = try Query.integer(request, "limit", default: 50, valid: 1...1000, fallback: 100)
        let afterText = !request.dialect.pagesByKeyset ? nil : request.query["after"].flatMap { $0.isEmpty ? nil : $0 }
        let offsetGiven = request.query["offset"].map { !$0.isEmpty } ?? false
        if afterText != nil && offsetGiven {
            throw APIError(.badRequest, "after and offset exclude each other: page by one of them")
        }
        if offsetGiven || !request.dialect.pagesByKeyset {
            let offset = try Query.integer(request, "offset", default: 0, valid: 0...Int.max, fallback: 0)
            return APIResponse(
                status: .ok, body: try EventListing.page(user: request.userId, limit: limit, offset: offset, db))
        }
        var after: EventsPageToken?
        if let afterText {
            guard let token = EventsPageToken(text: afterText) else {
                throw APIError(.badRequest, "after is not a page token: pass the X-Next-After of the previous page")
            }
            after = token
        }
        let page = try EventListing.keysetPage(
            user: request.userId, limit: limit, after: after, pageBytes: request.pageBytes, db)
        var response = APIResponse(status: .ok, body: page.body)
        if let next = page.next { response.headers.append((.nextAfter, next.text)) }
        return response
    }

    static func get(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        var event = try find(try request.pathId("id", "event"), request, db)
        event.eventType = try? EventTypes.objects.find(event.eventTypeId, request, db)
        return try .json(event)
    }

    static let rows = OwnedTable(
        "events", type: .event, noun: "event", columns: Rows.eventColumns, decode: Rows.event)

    static func find(
        _ id: String, _ request: APIRequest, _ db: any StorageTransaction, asServerError: Bool = false
    ) throws -> APIEvent {
        try rows.find(id, request, db, asServerError: asServerError)
    }

    // MARK: Creates

    enum Route {
        case single
        case batch
    }

    enum Outcome {
        case inserted(APIEvent)
        /// An identical re-send or a HealthKit match: the stored row, no feed row.
        case existing(APIEvent)
    }

    static func create(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let body = try BodyReader.object(of: request)
        switch try createOne(body.members, route: .single, request, db) {
        case .inserted(let event): return try .json(event, status: request.dialect.createdStatus)
        case .existing(let event): return try .json(event)
        }
    }

    /// The steps of api-v1 §5.3.4 for one item: validate, id collision, HealthKit match, manual dedupe, insert.
    static func createOne(
        _ members: [String: JSONValue], route: Route, _ request: APIRequest, _ db: any StorageTransaction,
        references: ReferenceCheck = ReferenceCheck(), lookups: BatchLookups? = nil
    ) throws
        -> Outcome
    {
        var body = BodyReader(members: members)
        var fields = EventFields.read(&body, creating: true)
        if let typeId = fields.eventTypeId, !(try references.eventType(typeId, request, db)) {
            if let quirk = request.dialect.unknownEventType(typeId) { throw quirk }
            body.fail("event_type_id", "unknown_reference", "event_type_id names no event type of yours")
        }
        if route == .single { request.dialect.readSingleEventCreate(&fields) }
        if let geofenceId = fields.geofenceId, !(try references.geofence(geofenceId, request, db)) {
            body.fail("geofence_id", "unknown_reference", "geofence_id names no geofence of yours")
        }
        try body.finish()
        let id = try validatedId(
            members["id"], now: request.now, checkVersion: request.dialect.checksIdVersion(batch: route == .batch))
        let candidate = fields.event(id: id, user: request.userId)

        let known: APIEvent?
        if case .known(let answer) = lookups?.storedEvent(id) ?? .unknown {
            known = answer
        } else {
            known = try db.row(
                sql: "SELECT \(Rows.eventColumns) FROM events WHERE id = ?", arguments: [id], Rows.event)
        }
        if let stored = known {
            if request.dialect.singleCreateOverwrites && route == .single {
                return .existing(try write(candidate, operation: .update, createdAt: nil, request, db))
            }
            guard stored.userId == request.userId else {
                throw APIError.conflict(code: "id_taken", field: "id", detail: "id: the id is taken", existingId: nil)
            }
            if EventFields(stored) == fields { return .existing(stored) }
            throw APIError.conflict(
                code: "duplicate_id", field: "id", detail: "id: another event has this id", existingId: stored.id)
        }
        if let match = try healthKitMatch(fields, request, db) {
            guard request.dialect.healthKitRepeatIsPartial else { return .existing(match) }
            let partial = APIEvent(
                id: match.id, userId: "", eventTypeId: "", timestamp: .zeroInstant, sourceType: .manual,
                details: EventDetails(healthKitSampleId: match.healthKitSampleId), createdAt: .zeroInstant,
                updatedAt: .zeroInstant)
            try ChangeLog.append(
                db, user: request.userId, type: .event, operation: .update, entityId: match.id,
                data: try ChangeLog.snapshot(partial, type: .event, dialect: request.dialect), now: request.now)
            return .existing(partial)
        }
        let slot = fields.eventTypeId.flatMap { type in
            fields.timestamp.map { BatchLookups.Slot(eventTypeId: type, timestamp: $0) }
        }
        if fields.sourceType != EventSourceType.healthkit.rawValue,
            let holder = try manualHolder(fields, slot: slot, request, db, lookups: lookups)
        {
            throw request.dialect.duplicateTimestamp(holder: holder)
        }
        let saved = try write(candidate, operation: .create, createdAt: request.now, request, db)
        lookups?.record(saved, at: slot)
        return .inserted(saved)
    }

    /// The id of the user's non-HealthKit event of the same type at the same timestamp.
    static func manualHolder(
        _ fields: EventFields, slot: BatchLookups.Slot?, _ request: APIRequest, _ db: any StorageTransaction,
        lookups: BatchLookups?
    ) throws -> String? {
        if let slot, case .known(let holder) = lookups?.holder(slot) ?? .unknown { return holder }
        return try db.value(
            String.self,
            sql: """
                SELECT id FROM events WHERE user_id = ? AND event_type_id = ? AND timestamp = ?
                AND source_type != 'healthkit'
                """, arguments: [request.userId, fields.eventTypeId, fields.timestamp])
    }

    /// The item's id: generated when absent or `""`; otherwise a canonical version-7 UUID at most 60 s ahead.
    static func validatedId(_ value: JSONValue?, now: Int64, checkVersion: Bool) throws(APIError) -> String {
        guard let value, value != .null, value != .string("") else { return UUIDv7.generate(at: now.date) }
        guard let text = value.stringValue, UUIDText.isCanonical(text) else {
            throw APIError(.invalidUUID, "id must be a canonical UUID")
        }
        guard checkVersion else { return text.lowercased() }
        guard UUIDv7.isValid(text), let milliseconds = UUIDv7.milliseconds(of: text) else {
            throw APIError(.invalidUUID, "an event id must be a version 7 UUID")
        }
        guard milliseconds <= now + futureTolerance else {
            throw APIError(.futureTimestamp, "the id's time is more than 60 s ahead of the server's clock")
        }
        return text.lowercased()
    }

    /// HealthKit de-duplication (api-v1 §5.3.4 step 3): by sample id, else by type, category and whole second.
    static func healthKitMatch(
        _ fields: EventFields, _ request: APIRequest, _ db: any StorageTransaction
    ) throws -> APIEvent? {
        guard fields.sourceType == EventSourceType.healthkit.rawValue, let sample = fields.healthKitSampleId,
            !sample.isEmpty
        else { return nil }
        if let match = try db.row(
            sql: """
                SELECT \(Rows.eventColumns) FROM events
                WHERE user_id = ? AND source_type = 'healthkit' AND healthkit_sample_id = ?
                """, arguments: [request.userId, sample], Rows.event)
        {
            return match
        }
        guard let category = fields.healthKitCategory, let timestamp = fields.timestamp else { return nil }
        let second = timestamp - ((timestamp % 1000) + 1000) % 1000
        return try db.row(
            sql: """
                SELECT \(Rows.eventColumns) FROM events
                WHERE user_id = ? AND source_type = 'healthkit' AND event_type_id = ? AND healthkit_category = ?
                AND timestamp >= ? AND timestamp < ?
                """, arguments: [request.userId, fields.eventTypeId, category, second, second + 1000], Rows.event)
    }

    // MARK: Batch

    static func batch(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let body = try BodyReader.object(of: request, envelope: true)
        guard let items = body.members["events"]?.arrayValue else {
            let code = body.members["events"] == nil || body.members["events"] == .null ? "required" : "invalid_type"
            throw APIError.validation([
                FieldError(field: "events", message: "events must be an array of events", code: code)
            ])
        }
        guard (1...500).contains(items.count) else {
            throw APIError.validation([
                FieldError(field: "events", message: "events must hold 1 to 500 items", code: "out_of_range")
            ])
        }
        if request.dialect.batchesAllOrNothing { return try OriginalBatch.handle(items, request, db) }
        var created: [APIEvent] = []
        var errors: [BatchEventError] = []
        let references = ReferenceCheck()
        let lookups = try BatchLookups(items.compactMap(\.objectValue), request, db)
        for (index, item) in items.enumerated() {
            guard let members = item.objectValue else {
                errors.append(
                    BatchEventError(
                        index: index, message: "events[\(index)] must be an object", type: "validation",
                        field: "events[\(index)]", code: "invalid_type"))
                continue
            }
            do {
                switch try createOne(members, route: .batch, request, db, references: references, lookups: lookups) {
                case .inserted(let event), .existing(let event): created.append(event)
                }
            } catch let error as APIError {
                errors.append(
                    BatchEventError(
                        index: index, message: error.detail, type: error.kind.rawValue,
                        id: members["id"]?.stringValue?.lowercased(), field: error.errors.first?.field,
                        code: error.errors.first?.code, existingId: error.existingId))
            }
        }
        let result = BatchCreateEventsResponse(
            created: created, errors: errors, total: items.count, success: created.count, failed: errors.count)
        var response = try APIResponse.json(result, status: errors.isEmpty ? .created : .multipleOutcomes)
        response.observation = .batch(items: items.count)
        return response
    }

    // MARK: Update and delete

    static func update(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "event")
        var body = try BodyReader.object(of: request)
        let changes = EventFields.read(&body, creating: false)
        // api-v1 §3.5a: single keys of the map.
        let propertiesPatch =
            request.dialect.acceptsPropertiesPatch
            ? body.properties("properties_patch", removals: true).value ?? [:] : [:]
        if let typeId = changes.eventTypeId, !(try EventTypes.objects.exists(typeId, user: request.userId, db)) {
            body.fail("event_type_id", "unknown_reference", "event_type_id names no event type of yours")
        }
        if let geofenceId = changes.geofenceId, !(try Geofences.objects.exists(geofenceId, user: request.userId, db)) {
            body.fail("geofence_id", "unknown_reference", "geofence_id names no geofence of yours")
        }
        try body.finish()
        var stored = try find(id, request, db, asServerError: true)
        let merged = EventFields(stored).merging(
            changes, body: body.members, dialect: request.dialect, propertiesPatch: propertiesPatch)
        if JSONText.string(.object(merged.properties)).utf8.count > TextLimit.propertiesBytes {
            throw APIError.validation([
                FieldError(
                    field: "properties",
                    message: "properties \(TextLimit.Problem.tooLong(limitBytes: TextLimit.propertiesBytes))",
                    code: "too_long")
            ])
        }
        if request.dialect.checksCoordinatePairOnUpdate
            && (merged.locationLatitude == nil) != (merged.locationLongitude == nil)
        {
            throw APIError.validation([
                FieldError(
                    field: "location_latitude", message: "location_latitude and location_longitude go together",
                    code: "invalid_value")
            ])
        }
        guard merged != EventFields(stored) else {
            if request.dialect.unchangedUpdateEmbedsType {
                stored.eventType = try? EventTypes.objects.find(stored.eventTypeId, request, db)
            }
            return try .json(stored)
        }
        if merged.sourceType != EventSourceType.healthkit.rawValue,
            let holder = try db.value(
                String.self,
                sql: """
                    SELECT id FROM events WHERE user_id = ? AND event_type_id = ? AND timestamp = ?
                    AND source_type != 'healthkit' AND id != ?
                    """, arguments: [request.userId, merged.eventTypeId, merged.timestamp, id])
        {
            throw request.dialect.conflict(
                .conflict(
                    code: "duplicate_timestamp", field: "timestamp",
                    detail: "event: an event of this type already exists at this timestamp", existingId: holder))
        }
        if merged.sourceType == EventSourceType.healthkit.rawValue, let sample = merged.healthKitSampleId,
            let holder = try db.value(
                String.self,
                sql: """
                    SELECT id FROM events WHERE user_id = ? AND source_type = 'healthkit' AND healthkit_sample_id = ?
                    AND id != ?
                    """, arguments: [request.userId, sample, id])
        {
            throw request.dialect.conflict(
                .conflict(
                    code: "duplicate_sample_id", field: "healthkit_sample_id",
                    detail: "event: another HealthKit event has this sample id", existingId: holder))
        }
        return try .json(
            try write(merged.event(id: id, user: request.userId), operation: .update, createdAt: nil, request, db))
    }

    static func delete(_ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse {
        let id = try request.pathId("id", "event")
        guard try rows.findForDelete(id, request, db) != nil else { return rows.missing(request) }
        try db.execute(sql: "DELETE FROM events WHERE id = ?", arguments: [id])
        try ChangeLog.append(
            db, user: request.userId, type: .event, operation: .delete, entityId: id, data: nil, now: request.now)
        return .deleted(at: request.now)
    }

    /// The row's columns and its digest hash (`EventDigestHashes`), in that order.
    static let insertSQL = """
        INSERT INTO events (\(Rows.eventColumns), digest_hash)
        VALUES (\(Array(repeating: "?", count: Rows.eventColumnNames.count + 1).joined(separator: ", ")))
        """

    /// The insert that overwrites every column but `id` and `created_at` of a row that exists, and returns the row.
    static let upsertSQL = """
        \(insertSQL)
        ON CONFLICT(id) DO UPDATE SET \(
            (Rows.eventColumnNames + ["digest_hash"]).filter { $0 != "id" && $0 != "created_at" }
            .map { "\($0) = excluded.\($0)" }
            .joined(separator: ", "))
        RETURNING \(Rows.eventColumns)
        """

    /// Inserts or overwrites the row (keeping `created_at` when it exists) and logs the change.
    ///
    /// A create inserts a row `createOne` found no one holding, so what is stored is known without reading it
    /// back, and the INSERT is not waited for (on PostgreSQL a batch's inserts stream; docs/server.md). If another
    /// user's transaction took the id meanwhile, the unique key fails the transaction, which runs again and finds
    /// the row. An overwrite (the original backend's single create) returns the row it left (`RETURNING`).
    @discardableResult
    static func write(
        _ event: APIEvent, operation: MutationOperation, createdAt: Int64?, _ request: APIRequest,
        _ db: any StorageTransaction
    ) throws -> APIEvent {
        let properties = Rows.propertiesText(event.properties.mapValues(\.json))
        let stored = Rows.eventAsStored(event, propertiesText: properties)
        let arguments: [any SQLValueConvertible] =
            [
                event.id, event.userId, event.eventTypeId, event.timestamp.millisecondsSince1970, event.notes,
                event.isAllDay, event.sourceType.rawValue, properties, createdAt ?? request.now, request.now,
            ] + Rows.detailValues(event.details) + [EventDigestHashes.hash(of: stored)]
        let saved: APIEvent
        if operation == .create {
            try db.execute(sql: insertSQL, arguments: arguments)
            var row = stored
            row.createdAt = (createdAt ?? request.now).date
            row.updatedAt = request.now.date
            saved = row
        } else {
            let written = try db.row(sql: upsertSQL, arguments: arguments, Rows.event)
            guard let written else { throw APIError(.internal, "the event \(event.id) was not written") }
            saved = written
        }
        try ChangeLog.append(
            db, user: request.userId, type: .event, operation: operation, entityId: event.id,
            data: try ChangeLog.snapshot(saved, type: .event, dialect: request.dialect), now: request.now)
        return saved
    }
}

extension APIError {
    /// The same error answered as a 500 (the original backend's status for many failures).
    var asServerError: APIError {
        var error = self
        error.statusOverride = .internalServerError
        return error
    }
}

/// Query parameters (api-v1 §5.3.1, §5.6): a non-integer is 400 (`Dialect.toleratesBadQueryNumbers`).
enum Query {
    static func integer(
        _ request: APIRequest, _ name: String, default defaultValue: Int, valid: ClosedRange<Int>, fallback: Int
    ) throws(APIError) -> Int {
        guard let text = request.query[name], !text.isEmpty else { return defaultValue }
        guard let value = Int(text) else {
            if request.dialect.toleratesBadQueryNumbers { return fallback }
            throw APIError(.badRequest, "\(name) must be an integer")
        }
        if valid.contains(value) { return value }
        if name == "offset" {
            if request.dialect.toleratesBadQueryNumbers { return max(0, value) }
            throw APIError(.badRequest, "offset must not be negative")
        }
        return fallback
    }
}
