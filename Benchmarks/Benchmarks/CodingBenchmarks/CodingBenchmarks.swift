import Benchmark
import BenchmarkSupport
import Foundation
import Models
import RegressionGates

/// The wire formats on the hot paths, without the network: a bootstrap page decoded, a change-feed page parsed, and a
/// push batch encoded. Allocations divided by the page's events are the allocations per pulled event (see
/// docs/performance.md).
let benchmarks: @Sendable () -> Void = {
    let bootstrapPage = 1_000  // SyncConfiguration.throughput's bootstrap page
    let feedPage = 500  // and its feed page
    let events = PulledEvents.make(count: bootstrapPage)
    let listing = Once { try JSONCoding.encode(events) }
    let feed = Once {
        let changes = try events.prefix(feedPage).enumerated().map { index, event in
            ChangeEntry(
                id: Int64(index + 1), entityType: "event", operation: "create", entityId: event.id,
                userId: event.userId,
                data: try JSONCoding.decode(JSONValue.self, from: try JSONCoding.encode(event)),
                createdAt: event.createdAt)
        }
        return Array(try JSONCoding.encode(ChangeFeedResponse(changes: changes, nextCursor: 500, hasMore: true)))
    }
    let batch = BatchCreateEventsRequest(
        events: events.prefix(feedPage).map { event in
            CreateEventRequest(
                id: event.id, eventTypeId: event.eventTypeId, timestamp: event.timestamp, notes: event.notes,
                details: EventDetails(
                    locationLatitude: event.locationLatitude, locationLongitude: event.locationLongitude),
                properties: event.properties)
        })

    Benchmark("decode-bootstrap-page-1000", configuration: .gated(maxIterations: 200)) { benchmark in
        let bytes = try await listing.get()
        benchmark.startMeasurement()
        blackHole(try JSONCoding.decode([APIEvent].self, from: bytes))
        benchmark.stopMeasurement()
    }

    Benchmark("parse-feed-page-500", configuration: .gated(maxIterations: 200)) { benchmark in
        let bytes = try await feed.get()
        benchmark.startMeasurement()
        blackHole(try ChangeFeedResponse(jsonBytes: bytes))
        benchmark.stopMeasurement()
    }

    Benchmark("encode-push-batch-500", configuration: .gated(maxIterations: 200)) { _ in
        blackHole(try JSONCoding.encode(batch))
    }
}
