import AtelierQueue
import Foundation

/// The queue's statistics as JSON, for operators: `GET /v1/admin/queue` and `atelier queue stats
/// --json` print the same fields.
package struct QueueStatsView: Encodable {
    struct Count: Encodable { var kind: String; var state: String; var count: Int }
    struct Queue: Encodable {
        var queue: String
        var paused: Bool
        var ready: Int
        var scheduled: Int
        var running: Int
        var oldest_ready_age_seconds: Double
    }
    struct Minute: Encodable { var minute: Date; var succeeded: Int; var failed: Int }

    var counts: [Count]
    var queues: [Queue]
    var throughput_per_minute: [Minute]

    package init(_ stats: QueueStats) {
        counts = stats.counts.map { Count(kind: $0.kind, state: $0.state.rawValue, count: $0.count) }
        queues = stats.queues.map {
            Queue(queue: $0.queue, paused: $0.paused, ready: $0.ready, scheduled: $0.scheduled, running: $0.running,
                  oldest_ready_age_seconds: $0.oldestReadyAgeSeconds)
        }
        throughput_per_minute = stats.throughput.map { Minute(minute: $0.minute, succeeded: $0.succeeded, failed: $0.failed) }
    }

    /// The JSON the API answers (keys sorted, dates ISO 8601 with milliseconds).
    package func json() throws -> Data { try APIJSON.encode(self) }
}
