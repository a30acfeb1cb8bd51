import Foundation
import HTTPTypes
import Models

/// A successful answer: status and JSON body (empty for 204).
struct APIResponse: Sendable {
    var status: HTTPResponse.Status
    var body: [UInt8]
    /// What the handler saw that `/metrics` reports.
    var observation: Observation?
    /// Headers of the answer besides the ones every answer gets (`X-Next-After`).
    var headers: [(HTTPField.Name, String)] = []
    /// An error answered once the write's transaction has committed: what the handler wrote stays (a DELETE of an
    /// unknown id remembers the delete, and answers 404 all the same).
    var failureAfterCommit: APIError?
    /// A feed page's or a latest cursor's range of positions, recorded for the requesting device (api-v1 §16).
    var feedRange: FeedRange?

    enum Observation: Sendable {
        /// A change-feed page: its size, and the `created_at` (ms) of its oldest change.
        case feedPage(changes: Int, oldestCreatedAt: Int64?)
        case batch(items: Int)
        /// A give-back (api-v1 §15.1): how many items had each outcome.
        case giveBack([GiveBackOutcome: Int])
    }

    init(status: HTTPResponse.Status, body: [UInt8], observation: Observation? = nil) {
        self.status = status
        self.body = body
        self.observation = observation
    }

    static func json<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) throws -> APIResponse {
        APIResponse(status: status, body: Array(try JSONCoding.encode(value)))
    }

    /// Answers `error` after the transaction commits (`failureAfterCommit`).
    static func failing(_ error: APIError) -> APIResponse {
        var response = APIResponse(status: .notFound, body: [])
        response.failureAfterCommit = error
        return response
    }

    /// A DELETE's 204, with the time the delete was recorded (`Trendy-Deleted-At`, api-v1 §6.6): what a device
    /// gives back if the server loses the delete.
    static func deleted(at milliseconds: Int64) -> APIResponse {
        var response = APIResponse(status: .noContent, body: [])
        response.headers = [(.trendyDeletedAt, RFC3339.string(fromMilliseconds: milliseconds))]
        return response
    }
}

/// The positions a device may hold after a feed answer (api-v1 §16): the one it pulled from (nil for the latest cursor
/// of a bootstrap) up to the last change it was sent.
struct FeedRange: Sendable, Equatable {
    var cursor: Int64?
    var served: Int64
}
