import Foundation
import Models
import Networking
import Protocols
import TestSupport
import Testing
import TrendyServer
import TrendyServerTesting

/// A keyset page is asked for as soon as the previous one names it, so the server works while the client parses:
/// a walk still sends exactly one request a page, and a call for another page gets that page, not the one asked for
/// in advance.
@Suite("APIClient: the next keyset page in advance")
struct PagePrefetchTests {
    @Test("a walk sends one request a page and reads every event once; another page asked for is that page")
    func prefetchedPages() async throws {
        try await RequestLog.withServer { server, log in
            let api = APIClient(
                configuration: try APIClient.Configuration(serverRoot: server.root),
                tokenProvider: StaticTokenProvider(server.newUser().token))
            let type = try await api.createEventTypeWithIdempotency(
                CreateEventTypeRequest(id: UUIDv7.generate(at: Date()), name: "Walk", color: "#000", icon: "i"),
                idempotencyKey: UUID().uuidString)
            let created = try await api.createEventsBatch(
                (0..<7).map { number in
                    CreateEventRequest(
                        id: UUIDv7.generate(at: Date()), eventTypeId: type.id,
                        timestamp: Date(timeIntervalSince1970: 1_780_000_000 + Double(number)))
                }, idempotencyKey: UUID().uuidString)
            let newestFirst = created.created.sorted { $0.timestamp > $1.timestamp }.map { $0.id.lowercased() }

            var walked: [String] = []
            var after: String?
            repeat {
                let page = try await api.getEventsPage(limit: 3, after: after)
                walked += page.events.map { $0.id.lowercased() }
                after = page.nextAfter
            } while after != nil
            #expect(walked == newestFirst)
            let pageRequests = log.all.filter { $0.method == "GET" && $0.path == "/api/v1/events" }
            #expect(pageRequests.count == 3, "one request a page: \(pageRequests.map { $0.query ?? "" })")

            // The first page names the second, which is asked for at once; asking for the first again (or with
            // another limit) gets what was asked for.
            let asked = log.all.count
            let first = try await api.getEventsPage(limit: 3, after: nil)
            try await waitUntil("the first page and the second, asked for in advance") { log.all.count >= asked + 2 }
            let inAdvance = log.all.dropFirst(asked).map { $0.query ?? "" }
            #expect(inAdvance.count == 2 && inAdvance.last?.contains("after=") == true, "\(inAdvance)")
            let again = try await api.getEventsPage(limit: 3, after: nil)
            #expect(again.events.map(\.id) == first.events.map(\.id))
            let wider = try await api.getEventsPage(limit: 5, after: first.nextAfter)
            #expect(wider.events.map { $0.id.lowercased() } == Array(newestFirst[3..<7]))
        }
    }
}
