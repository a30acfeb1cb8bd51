import Foundation

/// An immutable value behind a reference, compared by value: a struct holding it stays small, keeps synthesized
/// `Hashable`, and can share one copy with others.
final class Box<Value: Hashable & Sendable>: Sendable, Hashable {
    let value: Value

    init(_ value: Value) { self.value = value }

    /// Nil for an empty value, so that "all nil" costs no allocation.
    convenience init?(_ value: Value, unlessEmpty: Bool) where Value == EventDetails {
        guard !value.isEmpty else { return nil }
        self.init(value)
    }

    static func == (lhs: Box, rhs: Box) -> Bool { lhs === rhs || lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

extension APIEvent {
    /// Makes the events of one long listing share repeated values — the user id, the type ids and the embedded
    /// types — instead of holding one decoded copy each. A bootstrap keeps every event in memory until its snapshot
    /// is complete, and this is a quarter of their weight (docs/history/performance.md).
    public struct Interner: Sendable {
        private var strings: [String: String] = [:]
        private var types: [String: Box<APIEventType>] = [:]
        /// Distinct values remembered; beyond it values are kept as they are, so odd input cannot grow the table.
        private let capacity = 4096

        /// An interner that has seen nothing yet.
        public init() {}

        /// Points `event`'s repeated values at the copies seen before.
        public mutating func intern(_ event: inout APIEvent) {
            event.userId = shared(event.userId)
            event.eventTypeId = shared(event.eventTypeId)
            guard let embedded = event.embeddedType else { return }
            if let known = types[embedded.value.id], known == embedded {
                event.embeddedType = known
            } else if types.count < capacity {
                types[embedded.value.id] = embedded
            }
        }

        private mutating func shared(_ value: String) -> String {
            if let known = strings[value] { return known }
            if strings.count < capacity { strings[value] = value }
            return value
        }
    }
}
