import Testing

/// One named check of a contract suite, run against a subject made for it: the same checks hold a mock and the real
/// implementation to one behaviour (`NetworkClientContract`, `ObservationContract`).
public struct ContractCheck<Subject>: Sendable, CustomTestStringConvertible {
    /// The rule it checks, citing the spec; what the test report shows.
    public let name: String
    let body: @Sendable (Subject) async throws -> Void

    public var testDescription: String { name }

    /// Makes a subject and runs the check on it; a failed expectation is recorded, an error thrown.
    public func run(_ makeSubject: () async throws -> Subject) async throws {
        try await body(try await makeSubject())
    }
}
