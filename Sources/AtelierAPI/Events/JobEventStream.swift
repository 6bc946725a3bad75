import AtelierQueue
import Foundation
import Hummingbird

/// `GET /v1/jobs/{id}/events` as Server-Sent Events.
///
/// First a `snapshot` event (the job as `GET /v1/jobs/{id}` shows it; no id, so it does not move
/// the resume point), then every job event after `Last-Event-ID` (header or `last_event_id`
/// query) in order — `id:` is the event's id, `event:` its type — then live ones as they
/// happen (``JobEventFeed``). Idle streams get a `: keep-alive` comment every
/// `ATELIER_SSE_KEEPALIVE`. The stream ends after the job's terminal event (`succeeded`,
/// `failed`, `cancelled`).
package struct JobEventStream {
    let queue: JobQueue
    let hub: EventHub
    let renderJob: @Sendable (Job) throws -> Data

    package static let terminalTypes: Set<String> = ["succeeded", "failed", "cancelled"]

    /// Each job event as it is: `id`, `event` (its type), `data` (its JSON).
    struct Formatter: JobEventFormatter {
        mutating func frames(for event: JobEvent) async throws -> (text: String, finished: Bool) {
            ("id: \(event.id)\nevent: \(event.type)\ndata: \(JobEventFeed.oneLine(event.data))\n\n",
             JobEventStream.terminalTypes.contains(event.type))
        }
    }

    func response(job: Job, principal: Principal, after lastEventID: Int64) throws -> Response {
        var prelude = "retry: 2000\n"
        if let snapshot = try? renderJob(job) {
            prelude += "event: snapshot\ndata: " + String(decoding: snapshot, as: UTF8.self) + "\n\n"
        }
        return try JobEventFeed(queue: queue, hub: hub).response(
            jobID: job.id, principal: principal, finishedAtStart: job.state.isFinished, after: lastEventID, prelude: prelude, formatter: Formatter())
    }
}
