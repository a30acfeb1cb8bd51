import Foundation
import Models

/// Events as a pull delivers them, with the field mix of a real account: notes on every second event, a location on
/// every fifth, a property on every third.
public enum PulledEvents {
    public static let userId = "5b3c1d2e-8f4a-4b6c-9d0e-1f2a3b4c5d6e"

    /// `count` events of one type, a minute apart, newest first; the same `now` gives the same fields (ids differ).
    public static func make(count: Int, now: Date = Date()) -> [APIEvent] {
        let typeId = UUIDv7.generate(at: now)
        return (0..<count).map { index in
            APIEvent(
                id: UUIDv7.generate(at: now), userId: userId, eventTypeId: typeId,
                timestamp: now.addingTimeInterval(Double(-index) * 60).roundedToMilliseconds,
                notes: index.isMultiple(of: 2) ? "note \(index)" : nil, sourceType: .manual,
                details: EventDetails(
                    locationLatitude: index.isMultiple(of: 5) ? 52.52 : nil,
                    locationLongitude: index.isMultiple(of: 5) ? 13.405 : nil),
                properties: index.isMultiple(of: 3) ? ["mood": PropertyValue(type: .text, value: "good")] : [:],
                createdAt: now, updatedAt: now)
        }
    }
}
