import Testing

/// One named check of a contract suite, run against a subject made for it: the same checks hold a mock and the real
/// implementation to one behaviour (`NetworkClientContract`, `ObservationContract`).
public struct ContractCheck<Subject>: Sendable, CustomTestStringConvertible {
    public let name: String
    let body: @Sendable (Subject) async throws -> Void

    public var testDescription: String { name }

    public func run(_ makeSubject: () async throws -> Subject) async throws {
        try await body(try await makeSubject())
    }
}
