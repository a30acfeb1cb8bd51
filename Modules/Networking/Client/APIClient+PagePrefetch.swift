import Foundation
import Models
import Protocols
import Synchronization

/// A keyset page of events asked for before it is wanted: when a page arrives with `X-Next-After`, the next one is
/// requested at once, and the server produces it while this client parses the current one. One slot: a call for any
/// other page cancels it. The answer is the same the call would get a moment later (a keyset page depends only on
/// its token and the data); a failure of the early request is the failure of the call that takes it.
struct PagePrefetch: Sendable {
    let limit: Int
    let after: String
    let answer: Task<APIClient.Answer, any Error>
}

extension APIClient {
    static func eventsPageEndpoint(limit: Int, after: String?) -> Endpoint {
        var query = [(name: "limit", value: "\(limit)")]
        if let after { query.append((name: "after", value: after)) }
        return .get("events", query: query)
    }

    /// The answer for the page `after`: the prefetched one when it is that page, else a request now.
    func eventsPageAnswer(limit: Int, after: String?) async throws(NetworkError) -> Answer {
        let prefetched = pagePrefetch.withLock { slot -> PagePrefetch? in
            defer { slot = nil }
            guard let waiting = slot else { return nil }
            if waiting.limit == limit && waiting.after == after { return waiting }
            waiting.answer.cancel()
            return nil
        }
        guard let prefetched else { return try await send(Self.eventsPageEndpoint(limit: limit, after: after)) }
        do {
            return try await withTaskCancellationHandler {
                try await prefetched.answer.value
            } onCancel: {
                prefetched.answer.cancel()
            }
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Asks for the page `after` now, for the call that will want it.
    func prefetchEventsPage(limit: Int, after: String) {
        let endpoint = Self.eventsPageEndpoint(limit: limit, after: after)
        let answer = Task { [self] () async throws -> Answer in try await send(endpoint) }
        let replaced = pagePrefetch.withLock { slot -> PagePrefetch? in
            defer { slot = PagePrefetch(limit: limit, after: after, answer: answer) }
            return slot
        }
        replaced?.answer.cancel()
    }
}
