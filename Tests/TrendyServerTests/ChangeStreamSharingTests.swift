import Foundation
import Synchronization
import Testing

@testable import TrendyServer

/// One commit wakes every stream of its user at once (api-v1 §13): they share one read of the page instead of each
/// reading it from the database — 5000 reads for 5000 streams made one write's delivery take 466 ms at p99
/// (docs/performance.md, "Live sync").
@Suite("Change stream page sharing")
struct ChangeStreamSharingTests {
    @Test("streams woken by the same commits share one read; a stream woken by a later commit reads again")
    func oneReadPerCommit() async throws {
        let streams = ChangeStreams(maxStreams: 10_000, maxStreamsPerUser: 10_000)
        let subscription = try streams.open(user: "u")
        defer { streams.close(subscription) }
        let reads = Mutex(0)
        let (gate, opened) = AsyncStream.makeStream(of: Void.self)
        let read: @Sendable () async throws -> ChangeStream.Page = {
            let count = reads.withLock { value -> Int in
                value += 1
                return value
            }
            // The first read waits until the test lets it finish, so the other streams find it in progress.
            if count == 1 { for await _ in gate { break } }
            return ChangeStream.Page(count: 1, last: Int64(count), text: Array("entry \(count)".utf8))
        }
        streams.committed(user: "u", changeId: 1)
        let woken = streams.commits(of: "u")
        let pages = try await withThrowingTaskGroup(of: ChangeStream.Page.self) { group in
            for _ in 0..<100 {
                group.addTask { try await streams.page(user: "u", since: 0, readAfter: woken, read: read) }
            }
            // Every task either awaits the first read or will find its page shared: let it finish.
            while reads.withLock({ $0 }) == 0 { await Task.yield() }
            opened.yield()
            opened.finish()
            var pages: [ChangeStream.Page] = []
            for try await page in group { pages.append(page) }
            return pages
        }
        #expect(reads.withLock { $0 } == 1, "one read for the hundred streams woken by one commit")
        #expect(pages.count == 100 && pages.allSatisfy { $0.last == 1 })

        // A later commit: the page read before it may miss its entries, so it is read again.
        streams.committed(user: "u", changeId: 2)
        let later = try await streams.page(
            user: "u", since: 0, readAfter: streams.commits(of: "u"), read: read)
        #expect(reads.withLock { $0 } == 2)
        #expect(later.last == 2)
    }
}
