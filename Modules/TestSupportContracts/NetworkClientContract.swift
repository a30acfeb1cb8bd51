import Foundation
import Models
import Protocols
import TestSupport
import Testing

/// The `NetworkClientProtocol` contract (api-v1, sync-engine §2.1–§2.3), as named async checks.
///
/// A subject is two clients of two users on one backend. Run it from a parameterized test:
///
/// ```swift
/// @Test(arguments: NetworkClientContract.checks)
/// func contract(_ check: NetworkClientContract.Check) async throws {
///     try await check.run { try await makeTwoUsers() }
/// }
/// ```
///
/// Ids are made from the real time, so the backend's clock must be the real one (event ids more than 60 s
/// ahead of the server are refused).
public enum NetworkClientContract {
    /// What a check runs against: two users' clients of one backend, and its fault controls.
    public struct Subject: Sendable {
        /// The client under test.
        public let client: any NetworkClientProtocol
        /// A client of another user of the same backend.
        public let otherUser: any NetworkClientProtocol

        /// How to make the backend's change streams fail (`streamFaultChecks`); nil for a backend that cannot.
        public let streamFaults: StreamFaults?

        /// A subject; the stream's fault checks need `streamFaults` (`checks` runs without them).
        public init(
            client: any NetworkClientProtocol, otherUser: any NetworkClientProtocol, streamFaults: StreamFaults? = nil
        ) {
            self.client = client
            self.otherUser = otherUser
            self.streamFaults = streamFaults
        }
    }

    /// The controls the stream's fault checks need from a backend.
    public struct StreamFaults: Sendable {
        /// The next entries sent to a stream of the subject's `client` meet `fault` instead of arriving.
        public let script: @Sendable (ScriptedStreamFault) -> Void
        /// A client of a backend of the same kind that has no stream route (the original backend).
        public let clientWithoutStreamRoute: @Sendable () throws -> any NetworkClientProtocol

        /// The controls of a backend.
        public init(
            script: @escaping @Sendable (ScriptedStreamFault) -> Void,
            clientWithoutStreamRoute: @escaping @Sendable () throws -> any NetworkClientProtocol
        ) {
            self.script = script
            self.clientWithoutStreamRoute = clientWithoutStreamRoute
        }
    }

    /// One named check.
    public typealias Check = ContractCheck<Subject>

    static func check(_ name: String, _ body: @escaping @Sendable (Subject) async throws -> Void) -> Check {
        Check(name: name, body: body)
    }

    /// A check that starts from an event type created on the subject's client.
    static func check(
        _ name: String, _ body: @escaping @Sendable (any NetworkClientProtocol, APIEventType) async throws -> Void
    ) -> Check {
        check(name) { subject in try await body(subject.client, try await eventType(subject.client)) }
    }

    /// Every check, to pass as a parameterized test's arguments.
    public static let checks: [Check] =
        eventTypeChecks + eventChecks + geofenceAndDefinitionChecks + feedChecks + revision3Checks + streamChecks
        + fieldTableChecks + giveBackChecks

    /// `checks` and the stream's fault checks, for a subject with `streamFaults`.
    public static let checksWithFaults: [Check] = checks + streamFaultChecks
}

// MARK: - Helpers

extension NetworkClientContract {
    static func newId() -> String { UUIDv7.generate(at: Date()) }
    static func key() -> String { UUID().uuidString.lowercased() }

    /// Expects `body` to fail with an HTTP status (and problem type, when given); returns the failure.
    @discardableResult
    static func expectFailure(
        _ status: Int, _ problemType: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async -> HTTPFailure? {
        do {
            try await body()
            Issue.record(
                "expected HTTP \(status) \(problemType ?? ""), but the call succeeded", sourceLocation: sourceLocation)
        } catch let NetworkError.http(failure) {
            #expect(failure.status == status, "message: \(failure.message ?? "")", sourceLocation: sourceLocation)
            if let problemType { #expect(failure.problemType == problemType, sourceLocation: sourceLocation) }
            return failure
        } catch {
            Issue.record("expected HTTP \(status), got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    static func eventType(
        _ client: any NetworkClientProtocol, name: String = "Coffee \(newId().suffix(6))"
    )
        async throws -> APIEventType
    {
        try await client.createEventTypeWithIdempotency(
            CreateEventTypeRequest(id: newId(), name: name, color: "#8B4513", icon: "cup"), idempotencyKey: key())
    }

    static func event(
        id: String = newId(), type: String, at timestamp: Date, configure: (inout CreateEventRequest) -> Void = { _ in }
    ) -> CreateEventRequest {
        var request = CreateEventRequest(id: id, eventTypeId: type, timestamp: timestamp.roundedToMilliseconds)
        configure(&request)
        return request
    }

    /// A past instant at a whole second, distinct per call site offset.
    static func instant(_ offset: Int) -> Date {
        Date(millisecondsSince1970: (Date().millisecondsSince1970 / 1000 - 86_400 + Int64(offset)) * 1000)
    }

    static func changesAfter(_ cursor: Int64, _ client: any NetworkClientProtocol) async throws -> [ChangeEntry] {
        try await client.getChanges(since: cursor, limit: 500).changes
    }
}
