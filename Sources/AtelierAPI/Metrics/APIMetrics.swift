import AtelierLanes
import AtelierQueue
import Foundation
import Prometheus
import Synchronization

/// Prometheus metrics of one API process: requests by route and status, request durations,
/// and, refreshed at each scrape from the database, jobs by kind and state, queue depth and
/// recent run times.
package final class APIMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()
    private static let buckets: [Duration] = [
        .microseconds(250), .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    private let seenQueues = Mutex<Set<String>>([])

    /// The request series, made once per method, route and status class: making them through
    /// the registry builds names and label lists each time, which every request would pay.
    private struct SeriesKey: Hashable {
        var method: String
        var route: String
        var statusClass: Int
    }
    private let series = Mutex<[SeriesKey: (requests: Counter, duration: DurationHistogram)]>([:])

    package init() {}

    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let key = SeriesKey(method: method, route: route, statusClass: status / 100)
        let found = series.withLock { $0[key] }
        let (requests, histogram) = found ?? makeSeries(key)
        requests.increment()
        histogram.record(duration)
    }

    private func makeSeries(_ key: SeriesKey) -> (requests: Counter, duration: DurationHistogram) {
        let made = (
            requests: registry.makeCounter(
                descriptor: .init(namespace: "atelier", subsystem: "http", metricName: "requests", unitName: "total",
                                  helpText: "HTTP requests answered, by method, route and status class."),
                labels: [("method", key.method), ("route", key.route), ("status", "\(key.statusClass)xx")]),
            duration: registry.makeDurationHistogram(
                descriptor: .init(namespace: "atelier", subsystem: "http", metricName: "request_duration", unitName: "seconds",
                                  helpText: "Time to answer (to the first byte for streams), by method and route."),
                labels: [("method", key.method), ("route", key.route)],
                buckets: Self.buckets))
        series.withLock { series in
            // Routes are the router's patterns, so the set is small; unmatched paths share one.
            if series.count < 10_000 { series[key] = made }
        }
        return made
    }

    /// Sets the job gauges from `snapshot` (read from the database) and the lanes' from `lanes`,
    /// then renders everything.
    func render(_ snapshot: MetricsSnapshot, lanes: [WorkLane] = []) -> [UInt8] {
        for lane in lanes {
            let load = lane.load
            for (metric, help, value) in [
                ("running", "Costly request work running now, by lane.", load.running),
                ("waiting", "Costly request work waiting for its lane, by lane.", load.waiting),
                ("refused", "Requests refused with 503 because their lane was full, since the process started.", load.refused),
            ] {
                registry.makeGauge(descriptor: .init(namespace: "atelier", subsystem: "lane", metricName: metric, unitName: "",
                                                     helpText: help),
                                   labels: [("lane", lane.name)]).set(Double(value))
            }
        }
        for row in snapshot.jobCounts {
            registry.makeGauge(
                descriptor: .init(namespace: "atelier", metricName: "jobs", unitName: "", helpText: "Jobs in the table, by kind and state."),
                labels: [("kind", row.kind), ("state", row.state)]
            ).set(Double(row.count))
        }
        // A queue that emptied has no row: report it as 0, not as its last depth.
        var depths = Dictionary(uniqueKeysWithValues: snapshot.queueDepths.map { ($0.queue, $0.count) })
        let queues = seenQueues.withLock { seen in
            seen.formUnion(depths.keys)
            return seen
        }
        for queue in queues {
            registry.makeGauge(
                descriptor: .init(namespace: "atelier", subsystem: "queue", metricName: "depth", unitName: "",
                                  helpText: "Jobs waiting to be claimed now (queued and due), by queue."),
                labels: [("queue", queue)]
            ).set(Double(depths.removeValue(forKey: queue) ?? 0))
        }
        for row in snapshot.runTimes {
            for (quantile, value) in [("0.5", row.p50), ("0.95", row.p95)] {
                registry.makeGauge(
                    descriptor: .init(namespace: "atelier", subsystem: "job", metricName: "run_duration", unitName: "seconds",
                                      helpText: "Run time of jobs finished in the last 15 minutes, by kind and quantile."),
                    labels: [("kind", row.kind), ("quantile", quantile)]
                ).set(value)
            }
        }
        return registry.emitToBuffer()
    }
}
