import Models
import Testing

@Suite("SyncCounts")
struct SyncCountsTests {
    /// Every counter given a different value through its `fields` entry.
    static func distinct(from first: Int) -> SyncCounts {
        var counts = SyncCounts()
        for (offset, field) in SyncCounts.fields.enumerated() { counts[keyPath: field.path] = first + offset }
        return counts
    }

    @Test("sync-engine §1.10 fields has one entry per counter, each writing its own: a missing or doubled entry fails")
    func oneEntryPerCounter() {
        let counters = Mirror(reflecting: SyncCounts()).children.compactMap(\.label)
        #expect(SyncCounts.fields.count == counters.count)
        let values = Mirror(reflecting: Self.distinct(from: 1)).children.compactMap { $0.value as? Int }
        #expect(values.sorted() == Array(1...counters.count))
        #expect(
            SyncCounts.fields.map(\.key)
                == ["pushed", "failed", "dead_lettered", "deferred", "pulled", "fenced", "given_back"])
    }

    @Test("+= sums every counter, as a run sums its rounds")
    func sumsEveryCounter() {
        var total = Self.distinct(from: 1)
        total += Self.distinct(from: 10)
        for (offset, field) in SyncCounts.fields.enumerated() {
            #expect(total[keyPath: field.path] == 11 + 2 * offset, "\(field.key)")
        }
    }
}
