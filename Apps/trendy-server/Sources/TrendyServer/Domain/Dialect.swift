import Foundation
import HTTPTypes
import Models

/// The backend this server speaks as: ours (api-v1 with the fixes of api-v1 §12.2), or the original Go backend with the
/// defects a client must tolerate (`--quirks original`, api-v1 §12.1).
///
/// Every difference between the two is a member of this type, and no other code reads the mode: each member says
/// what ours does and what the original does, so this file is the list of deviations. Two larger ones live in files
/// of their own, named from here: the original's batch route (`OriginalBatch`) and its time form
/// (`OriginalTimestamps`). `DialectTests` fails when another file reads the mode.
struct Dialect: Sendable, Equatable {
    private let isOriginal: Bool

    static let ours = Dialect(isOriginal: false)
    static let original = Dialect(isOriginal: true)

    init(_ quirks: ServerConfiguration.Quirks) { isOriginal = quirks == .original }
    private init(isOriginal: Bool) { self.isOriginal = isOriginal }

    // MARK: Transport (api-v1 §2)

    /// A path ending in `/`: ours routes it (404); the original redirects it, 301 for GET and 307 otherwise.
    var redirectsTrailingSlash: Bool { isOriginal }
    /// Ours names its revision-3 capabilities in `Trendy-Features` on every answer (api-v1 §2.1); the original sends
    /// none.
    var announcesFeatures: Bool { !isOriginal }
    /// The change stream (api-v1 §13) and the digest (api-v1 §14) are ours; the original has no such routes and answers
    /// 404.
    var servesStreamAndDigest: Bool { !isOriginal }
    /// An unknown route: ours answers a problem (404 `not_found`); the original the plain text `404 page not found`.
    var unknownRouteIsPlainText: Bool { isOriginal }
    /// An answer's body as the client receives it: ours as built; the original writes times without a zero
    /// fraction and without trailing zeros (api-v1 §12.1 item 13, `OriginalTimestamps`).
    func answerBody(_ body: [UInt8]) -> [UInt8] { isOriginal ? OriginalTimestamps.rewrite(body) : body }

    // MARK: Errors (api-v1 §8)

    /// The body of an error answer: ours an RFC 9457 problem; the original `{"error": detail}` as
    /// `application/json`, except a 401, a problem without the legacy `error` member (api-v1 §12.1 item 1).
    func errorBody(_ error: APIError, requestId: String) -> (contentType: String, body: [UInt8]) {
        if isOriginal && error.kind != .unauthorized {
            return ("application/json", Array(JSONText.string(["error": .string(error.detail)]).utf8))
        }
        var problem = error.problemBody(requestId: requestId)
        if isOriginal { problem.error = nil }
        return ("application/problem+json", Array((try? JSONCoding.encode(problem)) ?? Data()))
    }

    /// A 404 for an id the user deleted says `deleted` and when (api-v1 §6.6); the original has no tombstones.
    var tellsDeletedFromUnknown: Bool { !isOriginal }

    /// No such entity: ours 404; the original answers 500 with a "… not found" message where `asServerError`
    /// (PUT, DELETE, the property list).
    func notFound(_ what: String, asServerError: Bool = false) -> APIError {
        var error = APIError.notFound(what)
        if isOriginal && asServerError { error.statusOverride = .internalServerError }
        return error
    }

    /// A unique key taken: ours 409 with the holder; the original 500 with PostgreSQL's duplicate-key text.
    func conflict(_ error: APIError) -> APIError {
        guard isOriginal else { return error }
        var quirk = APIError(.internal, "pq: duplicate key value violates unique constraint (SQLSTATE 23505)")
        quirk.statusOverride = .internalServerError
        return quirk
    }

    /// An event naming a type the user does not have: ours fails the member (400, `unknown_reference`, nil here);
    /// the original answers 500 "invalid event type".
    func unknownEventType(_ typeId: String) -> APIError? {
        isOriginal ? APIError(.internal, "invalid event type: \(typeId)") : nil
    }

    /// A second manual event of one type at one time: 409 on both; ours names the field and the code
    /// `duplicate_timestamp`, the original only the holder.
    func duplicateTimestamp(holder: String) -> APIError {
        guard isOriginal else {
            return APIError.conflict(
                code: "duplicate_timestamp", field: "timestamp",
                detail: "event: an event of this type already exists at this timestamp", existingId: holder)
        }
        var error = APIError(.conflict, "an event of this type already exists at this timestamp")
        error.existingId = holder
        return error
    }

    // MARK: Success statuses

    /// A create that inserted: ours 201; the original 200.
    var createdStatus: HTTPResponse.Status { isOriginal ? .ok : .created }

    // MARK: Queries and listings (api-v1 §5.3.1, §5.6)

    /// A query number that is not an integer: ours 400; the original uses a fallback. A negative `offset`: ours
    /// 400; the original reads 0.
    var toleratesBadQueryNumbers: Bool { isOriginal }
    /// Ours pages events by `offset` or keyset (`after`) and event types and geofences by keyset; the original
    /// ignores `after`, pages events by `offset` only and lists types and geofences whole.
    var pagesByKeyset: Bool { !isOriginal }
    /// A `since` below the retained history, or above all of it (the database went back to a backup, or was reset):
    /// ours 410 `cursor_expired` (the client bootstraps); the original keeps no watermark and answers what is left.
    var expiresCursors: Bool { !isOriginal }
    /// A negative `since`: ours 400; the original reads it as a cursor.
    var acceptsNegativeCursor: Bool { isOriginal }

    // MARK: Idempotency (api-v1 §7)

    /// The path a key is scoped to: ours the concrete path; the original the route's template, so one key on two
    /// ids of one route replays the first answer.
    func idempotencyPath(concrete: String, template: String) -> String { isOriginal ? template : concrete }
    /// A repeat while the first is running: ours 409 `idempotency_in_flight`; the original runs both.
    var refusesRepeatsInFlight: Bool { !isOriginal }
    /// A repeat with another body: ours 422 `idempotency_mismatch`; the original replays the first answer.
    var checksRepeatBody: Bool { !isOriginal }
    /// A replay: ours marks it with `Idempotency-Replayed` and the legacy header; the original the legacy only.
    var marksReplaysWithStandardHeader: Bool { !isOriginal }

    // MARK: Rate limit (api-v1 §9)

    /// Ours sends `RateLimit-*` on every answer and a 429's `Retry-After` from the bucket; the original sends
    /// `X-RateLimit-Remaining` and `X-RateLimit-Limit: 300, 300;w=60` on a 429 only, which says retry in 60 s.
    var legacyRateLimitHeaders: Bool { isOriginal }

    // MARK: Change log (api-v1 §6)

    /// Ours writes a snapshot's absent optional members as explicit nulls (api-v1 §6.3); the original omits them and
    /// empty maps.
    var snapshotsCarryNulls: Bool { !isOriginal }
    /// A delete's cascade (cleared references, deleted children): ours logs a row for each; the original logs the
    /// deleted entity only.
    var logsCascades: Bool { !isOriginal }

    // MARK: Request bodies (api-v1 §3.5)

    /// A PUT's `""` for a required text: ours 400 `required`; the original leaves the field as it is.
    var refusesEmptyRequiredText: Bool { !isOriginal }
    /// A PUT's `null` for a clearable field of an event type, geofence or definition: ours clears it; the original
    /// cannot clear and leaves it.
    var nullClearsObjectFields: Bool { !isOriginal }
    /// A PUT's `null` for an event's coordinate: ours clears it; the original leaves it (other event fields clear
    /// on both).
    var nullClearsEventCoordinates: Bool { !isOriginal }
    /// An event PUT leaving one coordinate of the pair: ours 400; the original stores it.
    var checksCoordinatePairOnUpdate: Bool { !isOriginal }
    /// `properties_patch` on an event PUT (api-v1 §3.5a): ours applies it; the original has no such member.
    var acceptsPropertiesPatch: Bool { !isOriginal }

    /// A geofence create as the original reads it: the `id` is required, a coordinate of exactly 0 is missing, a
    /// fence is inactive unless told, and no region identifier is kept. Ours takes the body as it is.
    func readGeofenceCreate(_ members: inout FieldMembers<GeofenceFields>, _ body: inout BodyReader, idGiven: Bool) {
        guard isOriginal else { return }
        if !idGiven { body.fail("id", "required", "id is required") }
        for key in ["latitude", "longitude"] where members[key].value == .number(0) {
            body.fail(key, "required", "\(key) is required")
        }
        if members["is_active"].value == nil { members["is_active"] = .value(.bool(false)) }
        members["ios_region_identifier"] = .absent
    }

    /// A geofence PUT as the original reads it: a coordinate of exactly 0 is ignored. Ours stores it.
    func readGeofenceUpdate(_ members: inout FieldMembers<GeofenceFields>) {
        guard isOriginal else { return }
        for key in ["latitude", "longitude"] where members[key].value == .number(0) { members[key] = .absent }
    }

    /// A definition create: ours takes the type from the path; the original also requires `event_type_id` in the
    /// body.
    func readDefinitionCreate(_ body: inout BodyReader) {
        if isOriginal && !body.uuid("event_type_id").isPresent {
            body.fail("event_type_id", "required", "event_type_id is required")
        }
    }

    /// A definition PUT as the original reads it: empty options are ignored (and `null` cannot clear them or the
    /// default, `nullClearsObjectFields`), and `display_order` not sent resets it to 0. Ours keeps what is not sent.
    func readDefinitionUpdate(_ members: inout FieldMembers<PropertyDefinitionFields>) {
        guard isOriginal else { return }
        if members["options"].value == .strings([]) { members["options"] = .absent }
        if members["display_order"].value == nil { members["display_order"] = .value(.integer(0)) }
    }

    // MARK: Events (api-v1 §5.3)

    /// `POST /events` as the original reads it: the geofence, the coordinates and the place name are dropped
    /// (api-v1 §12.1 item 9). The batch route keeps them on both.
    func readSingleEventCreate(_ fields: inout EventFields) {
        guard isOriginal else { return }
        (fields.geofenceId, fields.locationLatitude, fields.locationLongitude) = (nil, nil, nil)
        fields.locationName = nil
    }

    /// Whether a create's `id` must be a UUIDv7 whose time is at most 60 s ahead of the server's: always on ours; the
    /// original's batch route takes any UUID.
    func checksIdVersion(batch: Bool) -> Bool { !(isOriginal && batch) }
    /// `POST /events` with an id that exists: ours 200 with the stored event (another user's: 409 `id_taken`);
    /// the original overwrites it, even another user's, and logs an update.
    var singleCreateOverwrites: Bool { isOriginal }
    /// A HealthKit sample sent again: ours answers the stored event; the original answers a partial event (id and
    /// sample id) and logs an update carrying only those.
    var healthKitRepeatIsPartial: Bool { isOriginal }
    /// `POST /events/batch`: ours validates each item and answers per item (201/207); the original inserts all or
    /// nothing (`OriginalBatch`).
    var batchesAllOrNothing: Bool { isOriginal }
    /// An event PUT that changes nothing: ours answers the stored event; the original embeds its `event_type`.
    var unchangedUpdateEmbedsType: Bool { isOriginal }
}
