import Foundation
import Models

/// `Fixtures/api` of this repository, found from this source file so tests run from any working directory.
enum FixtureFiles {
    /// The wire shape of each fixture, by file-name prefix (up to the first dot), as its typed value.
    static let shapes: [String: @Sendable (Data) throws -> any Encodable] = [
        "event-type": { try JSONCoding.decode(APIEventType.self, from: $0) },
        "event-types": { try JSONCoding.decode([APIEventType].self, from: $0) },
        "event": { try JSONCoding.decode(APIEvent.self, from: $0) },
        "events": { try JSONCoding.decode([APIEvent].self, from: $0) },
        "geofence": { try JSONCoding.decode(APIGeofence.self, from: $0) },
        "property-definition": { try JSONCoding.decode(APIPropertyDefinition.self, from: $0) },
        "batch": { try JSONCoding.decode(BatchCreateEventsResponse.self, from: $0) },
        "changes": { try JSONCoding.decode(ChangeFeedResponse.self, from: $0) },
        "latest-cursor": { try JSONCoding.decode(FeedPosition.self, from: $0) },
        "health": { try JSONCoding.decode(HealthResponse.self, from: $0) },
        "problem": { try JSONCoding.decode(ProblemDetails.self, from: $0) },
        "error": { try JSONCoding.decode(ProblemDetails.self, from: $0) },
        "request": { try JSONCoding.decode(JSONValue.self, from: $0) },
    ]

    /// The decoder of a fixture's shape.
    static func shape(of name: String) -> (@Sendable (Data) throws -> any Encodable)? {
        shapes[String(name.prefix { $0 != "." })]
    }

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/api")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }
            .sorted()
    }
}
