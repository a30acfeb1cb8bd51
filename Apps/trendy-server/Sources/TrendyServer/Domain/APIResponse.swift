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

    static let noContent = APIResponse(status: .noContent, body: [])
}
