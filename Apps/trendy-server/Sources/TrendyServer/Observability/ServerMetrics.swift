import CoreMetrics
import Foundation
import Models
import Prometheus

/// What `GET /metrics` reports, in the Prometheus text format (swift-metrics recorded into a swift-prometheus
/// registry). Each server has its own registry, so several servers in one process (tests, embedders) never mix.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultValueHistogramBuckets = [1, 5, 10, 50, 100, 250, 500]
        factory.valueHistogramBuckets["trendy_feed_lag_seconds"] = [1, 5, 30, 60, 300, 3600, 86_400, 604_800]
        self.factory = factory
    }

    /// One answered request: `route` is the route template (`/api/v1/events/{id}`), never a concrete path, so the
    /// series stay few.
    func request(method: String, route: String, status: Int, duration: Duration) {
        let dimensions = [("method", method), ("route", route), ("status", "\(status)")]
        Counter(label: "trendy_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Timer(
            label: "trendy_http_request_duration_seconds", dimensions: [("method", method), ("route", route)],
            factory: factory
        ).recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// A change-feed page: how many changes it carried and how long its oldest change had waited (feed lag).
    func feedPage(changes: Int, oldestWaitedMilliseconds: Int64?) {
        Recorder(label: "trendy_feed_page_changes", factory: factory).record(changes)
        if let waited = oldestWaitedMilliseconds {
            Recorder(label: "trendy_feed_lag_seconds", factory: factory).record(Double(max(0, waited)) / 1000)
        }
    }

    /// An event batch: how many items it carried.
    func batch(items: Int) {
        Recorder(label: "trendy_batch_events", factory: factory).record(items)
    }

    /// A give-back (api-v1 §15.1): its items by outcome, `trendy_given_back_total{outcome}`.
    func givenBack(_ outcomes: [GiveBackOutcome: Int]) {
        for (outcome, count) in outcomes where count > 0 {
            Counter(
                label: "trendy_given_back_total", dimensions: [("outcome", outcome.rawValue)], factory: factory
            ).increment(by: count)
        }
    }

    /// A change stream opened (api-v1 §13).
    func streamOpened() {
        Meter(label: "trendy_open_streams", factory: factory).increment()
    }

    /// A change stream closed.
    func streamClosed() {
        Meter(label: "trendy_open_streams", factory: factory).decrement()
    }

    /// Entries a stream sent in one write.
    func streamed(changes: Int) {
        Counter(label: "trendy_streamed_changes_total", factory: factory).increment(by: changes)
    }

    /// A compaction of the change log (api-v1 §6.8): `trendy_changes_compacted_total`, and its longest write
    /// transaction, `trendy_compaction_write_seconds`.
    func compacted(_ report: ChangeLogCompaction) {
        Counter(label: "trendy_changes_compacted_total", factory: factory).increment(by: report.removed)
        if report.users > 0 {
            Recorder(label: "trendy_compaction_write_seconds", factory: factory).record(
                report.longestWriteMilliseconds / 1000)
        }
    }

    /// The exposition text.
    func render() -> [UInt8] { registry.emitToBuffer() }
}
