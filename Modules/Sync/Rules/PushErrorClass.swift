import Foundation
import Models
import Protocols

/// The class of a failed push request (sync-engine §4.5). First match wins; messages compare lowercased.
enum PushErrorClass: Equatable {
    case cancelled
    case transport(String)
    case auth
    case rateLimited(retryAfter: TimeInterval?)
    case inFlight
    /// A delete whose entity is already gone: success.
    case alreadyGone
    case duplicate(existingId: String?, message: String)
    /// An update whose entity is gone on the server.
    case gone
    /// 410 `cursor_expired` on a write: the server does not hold the feed position the write was made from (it went
    /// back to a backup, api-v1 §6.7); nothing was written.
    case feedWentBack
    case failure(String)

    static func classify(_ error: any Error, operation: MutationOperation) -> PushErrorClass {
        if error is CancellationError { return .cancelled }
        guard let error = error as? NetworkError else { return .failure("\(error)") }
        switch error {
        case .cancelled: return .cancelled
        case .transport(let message): return .transport(message)
        case .invalidResponse: return .failure(error.description)
        case .decoding: return .failure(error.description)
        case .http(let failure):
            let status = failure.status
            let message = (failure.message ?? "").lowercased()
            if status == 401 { return .auth }
            if status == 429 { return .rateLimited(retryAfter: failure.retryAfter) }
            if failure.problemType == "idempotency_in_flight" { return .inFlight }
            if status == 410 && failure.problemType == "cursor_expired" { return .feedWentBack }
            if operation == .delete
                && (status == 404 || status == 410 || (status >= 500 && message.contains("not found")))
            {
                return .alreadyGone
            }
            if status == 409 || (status >= 400 && ["duplicate", "unique", "23505"].contains(where: message.contains)) {
                return .duplicate(
                    existingId: failure.existingId?.lowercased(), message: failure.message ?? "HTTP \(status)")
            }
            if operation == .update && (status == 404 || (status >= 500 && message.contains("not found"))) {
                return .gone
            }
            return .failure(error.description)
        }
    }
}
