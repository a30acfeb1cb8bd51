import Foundation
import HTTPTypes
import Models

/// Behaviours of the original backend that `--quirks original` reproduces (api-v1 §12.1).
enum Quirk {
    /// 404 on ours; the original answers 500 with a "… not found" message on PUT, DELETE and the property list.
    static func notFound(_ what: String, _ request: APIRequest, asServerError: Bool = false) -> APIError {
        var error = APIError.notFound(what)
        if request.original && asServerError { error.statusOverride = .internalServerError }
        return error
    }

    /// 409 on ours; the original answers 500 with PostgreSQL's duplicate-key text.
    static func conflict(_ error: APIError, _ request: APIRequest) -> APIError {
        guard request.original else { return error }
        var quirk = APIError(
            .internal, "pq: duplicate key value violates unique constraint (SQLSTATE 23505)")
        quirk.statusOverride = .internalServerError
        return quirk
    }
}
