import Foundation
import HTTPTypes
import Models

/// `POST /events/batch` as the original backend answers it (api-v1 §5.3.5 [orig], api-v1 §12.1 item 7): no per-item
/// validation, HealthKit matches returned partial, the other items inserted all or nothing — one duplicate id or
/// (type, timestamp) fails the whole request with 500 — and a 400 carrying the batch body when every item failed.
enum OriginalBatch {
    static func handle(_ items: [JSONValue], _ request: APIRequest, _ db: any StorageTransaction) throws -> APIResponse
    {
        var created: [APIEvent] = []
        var errors: [BatchEventError] = []
        let references = ReferenceCheck()
        for (index, item) in items.enumerated() {
            let members = item.objectValue ?? [:]
            let typeId = members["event_type_id"]?.stringValue?.lowercased() ?? ""
            guard try references.eventType(typeId, request, db) else {
                errors.append(BatchEventError(index: index, message: "invalid event type: \(typeId)"))
                continue
            }
            do {
                switch try Events.createOne(members, route: .batch, request, db, references: references) {
                case .inserted(let event), .existing(let event): created.append(event)
                }
            } catch let error as APIError where error.kind == .conflict {
                throw APIError(
                    .internal, "pq: duplicate key value violates unique constraint \"events_pkey\" (SQLSTATE 23505)"
                ).asServerError
            } catch let error as APIError {
                errors.append(BatchEventError(index: index, message: error.detail))
            }
        }
        let result = BatchCreateEventsResponse(
            created: created, errors: errors, total: items.count, success: created.count, failed: errors.count)
        if created.isEmpty { throw BatchAnswer(response: try .json(result, status: .badRequest)) }
        return try .json(result, status: errors.isEmpty ? .created : .multipleOutcomes)
    }
}

/// A non-2xx answer that is a regular body, not a problem (the original's 400 batch result). Thrown so the
/// transaction rolls back, like any error.
struct BatchAnswer: Error {
    let response: APIResponse
}
