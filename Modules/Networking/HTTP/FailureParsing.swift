import Foundation
import Models
import Protocols

/// Builds the `HTTPFailure` of a non-2xx answer from its content, never from `Content-Type` (api-v1 §8.4).
enum FailureParsing {
    static func failure(
        status: Int, body: Data, retryAfterHeader: String?, requestId: String?, now: Date
    )
        -> HTTPFailure
    {
        var failure = HTTPFailure(status: status)
        switch ProblemDetails.parse(Array(body)) {
        case .problem(let problem):
            failure.problemType = problem.problemCode
            failure.message = problem.message
            failure.existingId = problem.existingId?.lowercased()
            failure.deletedAt = problem.deletedAt.flatMap(RFC3339.date(from:))
            failure.retryAfter = problem.retryAfter.map(TimeInterval.init)
        case .legacy(let problem):
            failure.message = problem.message
        case .unstructured:
            break  // empty, plain text or HTML: the status is all that is known
        }
        if let header = RetryAfter.seconds(from: retryAfterHeader, now: now) { failure.retryAfter = header }
        failure.requestId = requestId
        return failure
    }
}
