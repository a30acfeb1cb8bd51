import Foundation
import HTTPTypes
import Models

/// `GET /event-types` and `GET /geofences` in pages (api-v1 §5.2, §5.5), like events' keyset pages: `limit` (1–1000,
/// default 1000), `after` = the `X-Next-After` of the previous page, which every page but the last carries. A page
/// also ends early at the page byte cap (`APIRequest.pageBytes`), so no answer is huge whatever the account holds. A
/// client that asks once, without paging, gets every entity of an ordinary account in that first page.
enum KeysetList {
    /// The listing's order: by `created_at`, then `id`, in one direction.
    enum Direction {
        case ascending
        case descending

        var sql: String { self == .ascending ? "ASC" : "DESC" }
        var comparison: String { self == .ascending ? ">" : "<" }
    }

    static let defaultLimit = 1000

    /// One page of `table`'s rows of the caller that match `condition`, each encoded as `decode` reads it.
    static func page<Entity: Encodable>(
        _ request: APIRequest, table: String, columns: String, condition: String = "",
        conditionArguments: [any SQLValueConvertible] = [], direction: Direction,
        position: (Entity) -> (createdAt: Date?, id: String), decode: (any StorageRow) throws -> Entity,
        _ db: any StorageTransaction
    ) throws -> APIResponse {
        let limit = try Query.integer(request, "limit", default: defaultLimit, valid: 1...1000, fallback: 100)
        var after: EventsPageToken?
        if let text = request.query["after"], !text.isEmpty {
            guard let token = EventsPageToken(text: text) else {
                throw APIError(.badRequest, "after is not a page token: pass the X-Next-After of the previous page")
            }
            after = token
        }
        var sql = "SELECT \(columns) FROM \(table) WHERE user_id = ?\(condition)"
        var arguments: [any SQLValueConvertible] = [request.userId] + conditionArguments
        if let after {
            let comparison = direction.comparison
            // A range on `created_at` first (an index's bound), then the id among equal times.
            sql += " AND created_at \(comparison)= ? AND (created_at \(comparison) ? OR id \(comparison) ?)"
            arguments += [after.timestamp, after.timestamp, after.id]
        }
        sql += " ORDER BY created_at \(direction.sql), id \(direction.sql) LIMIT ?"
        arguments.append(limit + 1)

        var text: [UInt8] = [UInt8(ascii: "[")]
        var written = 0
        var last: EventsPageToken?
        var more = false
        try db.forEachRow(sql, arguments) { row in
            if written == limit {
                more = true
                return false
            }
            let entity = try decode(row)
            let mark = text.count
            if written > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: try JSONCoding.encode(entity))
            if written > 0 && text.count + 1 > request.pageBytes {
                text.removeSubrange(mark...)
                more = true
                return false
            }
            written += 1
            let (createdAt, id) = position(entity)
            last = EventsPageToken(timestamp: createdAt?.millisecondsSince1970 ?? 0, id: id)
            return true
        }
        text.append(UInt8(ascii: "]"))
        var response = APIResponse(status: .ok, body: text)
        if more, let last { response.headers.append((.nextAfter, last.text)) }
        return response
    }
}
