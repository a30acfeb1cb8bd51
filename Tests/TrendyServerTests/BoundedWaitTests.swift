import Testing
import TrendyServerTesting

/// The bounded wait behind `LiveTrendyServer.stop` (docs/history/reliability.md, "The PostgreSQL suites hung").
@Suite("BoundedWait", .timeLimit(.minutes(1)))
struct BoundedWaitTests {
    @Test("a task that ends is awaited: true, before a bound that never passes")
    func taskEnds() async {
        let task = Task { 42 }
        let ended = await BoundedWait.ended(task, within: .seconds(60)) { _ in
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        #expect(ended)
    }

    @Test("a task that never ends is given up when the bound passes: false, and the wait returns")
    func taskNeverEnds() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { for await _ in stream {} }  // ends only when the stream finishes
        let ended = await BoundedWait.ended(task, within: .seconds(60)) { _ in }
        #expect(!ended)
        continuation.finish()
        await task.value
    }
}
