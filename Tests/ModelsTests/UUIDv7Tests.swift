import Foundation
import Models
import Testing

@Suite("UUIDv7")
struct UUIDv7Tests {
    /// A private generator: the shared one must never see the far-future instants used here.
    let generator = UUIDv7.Generator()

    @Test("S1 ids are lowercase canonical version 7 with the RFC 4122 variant and the given time")
    func shape() throws {
        let date = Date(millisecondsSince1970: 1_768_614_292_123)
        let id = generator.generate(at: date)
        #expect(id.count == 36 && id == id.lowercased())
        #expect(UUIDv7.isValid(id))
        let bytes = try #require(UUIDText.bytes(of: id))
        #expect(bytes[6] >> 4 == 7 && bytes[8] >> 6 == 0b10)
        // S1: Every entity id, mutation id and idempotency key is a lowercase UUIDv7 built from the injected clock…
        #expect(UUIDv7.milliseconds(of: id) == 1_768_614_292_123)
    }

    @Test("ids are time-ordered across milliseconds")
    func timeOrdered() {
        let base = Date(millisecondsSince1970: 1_800_000_000_000)
        let ids = (0..<200).map { generator.generate(at: base.addingTimeInterval(Double($0) / 1000)) }
        #expect(ids == ids.sorted())
        #expect(ids.map { UUIDv7.milliseconds(of: $0) } == (0..<200).map { 1_800_000_000_000 + Int64($0) })
    }

    @Test("ids strictly increase within one millisecond, even past the counter's range")
    func monotonicWithinMillisecond() {
        let instant = Date(millisecondsSince1970: 1_900_000_000_000)
        let ids = (0..<10_000).map { _ in generator.generate(at: instant) }
        #expect(Set(ids).count == ids.count)
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        let times = ids.compactMap(UUIDv7.milliseconds(of:))
        #expect(times.first == 1_900_000_000_000)
        #expect((times.last ?? 0) - 1_900_000_000_000 < 10, "the counter borrows only a few milliseconds")
    }

    @Test("S1 an id carries its own instant, even after a later one: no clock leaks into another's ids")
    func clockGoingBackwards() {
        let late = generator.generate(at: Date(millisecondsSince1970: 2_000_000_000_500))
        let early = generator.generate(at: Date(millisecondsSince1970: 2_000_000_000_000))
        #expect(UUIDv7.milliseconds(of: late) == 2_000_000_000_500)
        #expect(UUIDv7.milliseconds(of: early) == 2_000_000_000_000, "S1 built from the instant given")
        let again = (0..<3).map { _ in generator.generate(at: Date(millisecondsSince1970: 2_000_000_000_000)) }
        #expect(Set([early] + again).count == 4 && again == again.sorted(), "unique, ordered within the instant")
    }

    @Test(
        "validation accepts only canonical v7 text",
        arguments: [
            ("0190f5c0-3f00-7a11-8b22-000000000001", true),
            ("0190F5C0-3F00-7A11-8B22-000000000001", true),
            ("0190f5c0-3f00-4a11-8b22-000000000001", false),
            ("0190f5c0-3f00-7a11-cb22-000000000001", false),
            ("{0190f5c0-3f00-7a11-8b22-000000000001}", false),
            ("urn:uuid:0190f5c0-3f00-7a11-8b22-000000000001", false),
            ("0190f5c03f007a118b22000000000001", false),
            ("0190f5c0-3f00-7a11-8b22-00000000000g", false),
        ])
    func validation(text: String, valid: Bool) {
        #expect(UUIDv7.isValid(text) == valid)
    }
}
