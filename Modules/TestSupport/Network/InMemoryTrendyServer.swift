import Foundation
import Hashing
import Models
import Protocols
import Synchronization

/// The Trendy API v1 semantics in memory, per user (sync-engine §2.9): client-made ids and their collision rules,
/// uniqueness conflicts with `existing_id`, three-state PUTs, per-item batch results, HealthKit matching, a change
/// feed with tombstones and logged cascades, and idempotent replays. `MockNetworkClient` sits on top of it, so a
/// sync against the mock behaves like a sync against trendy-server; `NetworkClientContract` proves it.
///
/// Failures are thrown as the `NetworkError` the real client would produce for the server's answer.
public final class InMemoryTrendyServer: Sendable {
    /// The server's time: `created_at`, `updated_at`, change times, deletes.
    public let clock: any SyncClock
    /// How far ahead of `clock` an event id's time may be; nil skips the check, for models whose clock is not the
    /// one the client's ids are made from.
    public let futureIdTolerance: TimeInterval?
    /// What the model announces in `Trendy-Features` (api-v1 §2.1): what trendy-server announces, unless a test
    /// plays an older server.
    public let features: ServerFeatures
    let state = Mutex(State())
    /// Open change streams by id; taken inside `state`'s lock (never the other way round), so an entry is yielded
    /// to the streams in the same critical section that logs it.
    let streams = Mutex<[UUID: ChangeStreamSubscriber]>([:])
    /// Faults the next entries meet on their way to a user's streams (`scriptStreamFault`), first first.
    let streamFaults = Mutex<[ScriptedStreamFault]>([])

    /// An empty server with every feature of trendy-server unless `features` says otherwise.
    public init(
        clock: any SyncClock = ManualClock(), futureIdTolerance: TimeInterval? = 60,
        features: ServerFeatures = InMemoryTrendyServer.allFeatures
    ) {
        self.clock = clock
        self.futureIdTolerance = futureIdTolerance
        self.features = features
    }

    /// The revision-3 features the model implements.
    public static let allFeatures = ServerFeatures([
        ServerFeatures.after, ServerFeatures.propertiesPatch, ServerFeatures.digest, ServerFeatures.stream,
        ServerFeatures.sinceCreatedAt,
    ])

    struct State: Sendable {
        var eventTypes: [String: APIEventType] = [:]
        var events: [String: APIEvent] = [:]
        var geofences: [String: APIGeofence] = [:]
        var definitions: [String: APIPropertyDefinition] = [:]
        var changes: [ChangeEntry] = []
        var nextChangeId: Int64 = 1
        var replays: [IdempotencyRecord<any Sendable>.Scope: IdempotencyRecord<any Sendable>] = [:]
        /// When each deleted id was deleted, by user and id (api-v1 §6.6).
        var tombstones: [TombstoneKey: Int64] = [:]
        /// The change entries a give-back wrote, with the time of the version given back (api-v1 §15.1).
        var givenBackChanges: [Int64: Int64] = [:]
        /// The members such an entry wrote from a device's queued edits (`GiveBackItem.pending`).
        var givenBackPending: [Int64: Set<String>] = [:]
        /// What `Trendy-History` announces (api-v1 §15): a new id after every `restore`.
        var history = ServerHistory(id: UUID().uuidString.lowercased())
    }

    /// The history the model announces (api-v1 §15).
    public var history: ServerHistory { state.withLock { $0.history } }

    struct TombstoneKey: Hashable, Sendable {
        let user: String
        let type: MutationEntityType
        let id: String
    }

    // MARK: Inspection

    /// Every change entry of `user`, in feed order.
    public func changes(of user: String) -> [ChangeEntry] {
        state.withLock { $0.changes.filter { $0.userId == user } }
    }

    /// `user`'s events, newest first.
    public func events(of user: String) -> [APIEvent] {
        state.withLock { state in Self.sortedEvents(state.events.values.filter { $0.userId == user }) }
    }

    /// `user`'s event types, by name.
    public func eventTypes(of user: String) -> [APIEventType] {
        state.withLock { state in Self.sortedTypes(state.eventTypes.values.filter { $0.userId == user }) }
    }

    /// `user`'s geofences, by name.
    public func geofences(of user: String) -> [APIGeofence] {
        state.withLock { state in Self.sortedFences(state.geofences.values.filter { $0.userId == user }) }
    }

    /// `user`'s property definitions, by type and display order.
    public func propertyDefinitions(of user: String) -> [APIPropertyDefinition] {
        state.withLock { state in
            Self.sortedDefinitions(state.definitions.values.filter { $0.userId == user })
        }
    }

    // MARK: Shared rules

    var nowMilliseconds: Int64 { clock.now().millisecondsSince1970 }

    /// Runs `operation` once per (user, method, path, key): a re-send with the same body replays the first answer,
    /// another body is 422 (api-v1 §7). Only successful answers are remembered.
    func idempotent<Response: Sendable>(
        user: String, method: String, path: String, key: String?, body: some Encodable,
        _ operation: (inout State) throws(NetworkError) -> Response
    ) throws(NetworkError) -> Response {
        let fingerprint = Self.fingerprint(body)
        return try state.withLock { (state: inout State) throws(NetworkError) -> Response in
            guard let key, !key.isEmpty else { return try operation(&state) }
            let scope = IdempotencyRecord<any Sendable>.Scope(user: user, method: method, path: path, key: key)
            if let record = state.replays[scope] {
                guard var response = record.replay(forBodyWith: fingerprint) as? Response else {
                    throw Problems.mismatch
                }
                if var answer = response as? any ReplayableAnswer {
                    answer.replayed = true
                    if let marked = answer as? Response { response = marked }
                }
                return response
            }
            let response = try operation(&state)
            state.replays[scope] = IdempotencyRecord(fingerprint: fingerprint, answer: response)
            return response
        }
    }

    static func fingerprint(_ body: some Encodable) -> String {
        guard let data = try? JSONCoding.encode(body) else { return "" }
        return IdempotencyRecord<any Sendable>.fingerprint(of: Array(data), hexDigest: CryptoSHA256().hexDigest)
            .fingerprint
    }

    func log(
        _ state: inout State, user: String, _ type: MutationEntityType, _ operation: MutationOperation, id: String,
        data: (some Encodable)?
    ) {
        let now = nowMilliseconds
        let snapshot = data.flatMap { try? ChangeSnapshot.data($0, of: type, explicitNulls: true) }
        state.changes.append(
            ChangeEntry(
                id: state.nextChangeId, entityType: type.rawValue, operation: operation.rawValue, entityId: id,
                userId: user, data: snapshot, deletedAt: operation == .delete ? Date(millisecondsSince1970: now) : nil,
                createdAt: Date(millisecondsSince1970: now)))
        state.nextChangeId += 1
        if operation == .delete { state.tombstones[TombstoneKey(user: user, type: type, id: id)] = now }
        if let entry = state.changes.last { deliver(entry, to: user) }
    }

    /// The 404 for the caller's `type` of id `id`, which it does not hold: `deleted` with the time when the caller
    /// deleted it, else `not_found` (api-v1 §6.6).
    func missing(
        _ state: State, user: String, _ type: MutationEntityType, id: String, noun: String
    ) -> NetworkError {
        guard let deletedAt = state.tombstones[TombstoneKey(user: user, type: type, id: id)] else {
            return Problems.notFound(noun)
        }
        return Problems.deleted(noun, at: deletedAt)
    }

    /// The 404 of a DELETE of an id `user` does not hold, as `missing`; an id nobody holds and `user` never deleted
    /// is remembered as deleted now (api-v1 §6.6: the server may have lost it to a restore), and the `not_found`
    /// says when. `heldByAnyone` says
    /// whether any user has a row with the id.
    func missingDelete(
        _ state: inout State, user: String, _ type: MutationEntityType, id: String, noun: String, heldByAnyone: Bool
    ) -> NetworkError {
        let error = missing(state, user: user, type, id: id, noun: noun)
        let key = TombstoneKey(user: user, type: type, id: id)
        guard !heldByAnyone && state.tombstones[key] == nil else { return error }
        // Still `not_found`, with the time the delete is remembered at.
        let at = now.millisecondsSince1970
        state.tombstones[key] = at
        return .http(
            HTTPFailure(
                status: 404, problemType: "not_found", message: "\(noun) not found",
                deletedAt: Date(millisecondsSince1970: at)))
    }

    /// When `user` deleted the entity (api-v1 §6.6), while it has no row again; what a DELETE's 204 says.
    public func deletedAt(user: String, _ type: MutationEntityType, id: String) -> Date? {
        state.withLock { $0.tombstones[TombstoneKey(user: user, type: type, id: id)] }
            .map(Date.init(millisecondsSince1970:))
    }

    func logDelete(_ state: inout State, user: String, _ type: MutationEntityType, id: String) {
        log(&state, user: user, type, .delete, id: id, data: String?.none)
    }

    /// A client id: generated when absent or empty, otherwise a canonical UUID, lowercased.
    func entityId(_ id: String?) throws(NetworkError) -> String {
        guard let id, !id.isEmpty else { return UUIDv7.generate(at: clock.now()) }
        guard UUIDText.isCanonical(id) else { throw Problems.invalidUUID("id must be a canonical UUID") }
        return id.lowercased()
    }

    var now: Date { Date(millisecondsSince1970: nowMilliseconds) }

    static func sortedTypes(_ types: some Sequence<APIEventType>) -> [APIEventType] {
        types.sorted { ($0.createdAt ?? .distantPast, $0.id) < ($1.createdAt ?? .distantPast, $1.id) }
    }

    static func sortedEvents(_ events: some Sequence<APIEvent>) -> [APIEvent] {
        events.sorted { ($0.timestamp, $0.id) > ($1.timestamp, $1.id) }
    }

    static func sortedFences(_ fences: some Sequence<APIGeofence>) -> [APIGeofence] {
        fences.sorted { ($0.createdAt ?? .distantPast, $0.id) > ($1.createdAt ?? .distantPast, $1.id) }
    }

    static func sortedDefinitions(_ definitions: some Sequence<APIPropertyDefinition>) -> [APIPropertyDefinition] {
        definitions.sorted {
            ($0.displayOrder, $0.createdAt ?? .distantPast, $0.id) < (
                $1.displayOrder, $1.createdAt ?? .distantPast, $1.id
            )
        }
    }
}

/// The errors trendy-server answers, as the client would throw them.
enum Problems {
    static func failure(_ status: Int, _ type: String, _ message: String, existingId: String? = nil) -> NetworkError {
        .http(HTTPFailure(status: status, problemType: type, message: message, existingId: existingId))
    }

    static func notFound(_ what: String) -> NetworkError { failure(404, "not_found", "\(what) not found") }
    static func deleted(_ what: String, at milliseconds: Int64) -> NetworkError {
        .http(
            HTTPFailure(
                status: 404, problemType: "deleted",
                message: "\(what) was deleted at \(RFC3339.string(fromMilliseconds: milliseconds))",
                deletedAt: Date(millisecondsSince1970: milliseconds)))
    }
    static func validation(_ message: String) -> NetworkError { failure(400, "validation", message) }
    static func badRequest(_ message: String) -> NetworkError { failure(400, "bad_request", message) }
    static func invalidUUID(_ message: String) -> NetworkError { failure(400, "invalid_uuid", message) }
    static let futureTimestamp = failure(
        400, "future_timestamp", "the id's time is more than 60 s ahead of the server's clock")
    static let mismatch = failure(
        422, "idempotency_mismatch", "this Idempotency-Key was used with a different request body; use a new key")

    /// Every conflict detail contains "duplicate" (api-v1 §8.1).
    static func conflict(_ detail: String, existingId: String?) -> NetworkError {
        failure(409, "conflict", "duplicate \(detail)", existingId: existingId)
    }

    static let idTaken = conflict("id: the id is taken", existingId: nil)
}

// MARK: - Value rules shared by creates and updates

extension InMemoryTrendyServer {
    static let latitudes = -90.0...90.0
    static let longitudes = -180.0...180.0

    static func check(_ value: Double?, in range: ClosedRange<Double>, _ field: String) throws(NetworkError) {
        if let value, !range.contains(value) { throw Problems.validation("\(field) is out of range") }
    }

    /// The table's rules on the fields a create or an update gives: required text not empty, numbers in their
    /// ranges, references naming one of `types` (the caller's event types).
    static func check<Fields: EntityFields>(
        _ values: [String: FieldValue], creating: Bool, of: Fields.Type, types: some Collection<String>
    ) throws(NetworkError) {
        for field in Fields.fields {
            let value = values[field.key]
            switch (field.kind, value) {
            case (.text, .text("")?) where field.presence.isRequiredOnCreate:
                throw Problems.validation(creating ? "\(field.key) is required" : "\(field.key) must not be empty")
            case (.number(let range), .number(let number)?) where !range.contains(number):
                throw Problems.validation("\(field.key) is out of range")
            case (.id, .text(let id)?) where !types.contains(id.lowercased()):
                throw Problems.validation("\(field.key) names no entity of yours")
            default: continue
            }
        }
    }

    static func checkReference(_ id: String?, in ids: some Collection<String>, _ field: String) throws(NetworkError) {
        if let id, !ids.contains(id.lowercased()) { throw Problems.validation("\(field) names no entity of yours") }
    }
}
