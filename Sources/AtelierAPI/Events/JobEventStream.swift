import AtelierQueue
import Foundation
import Hummingbird
import NIOCore

/// `GET /v1/jobs/{id}/events` as Server-Sent Events.
///
/// First a `snapshot` event (the job as `GET /v1/jobs/{id}` shows it; no id, so it does not move
/// the resume point), then every job event after `Last-Event-ID` (header or `last_event_id`
/// query) in order — `id:` is the event's id, `event:` its type — then live ones as they
/// happen, woken by the shared LISTEN connection through ``EventHub``. Idle streams get a
/// `: keep-alive` comment every `ATELIER_SSE_KEEPALIVE`. The stream ends after the job's
/// terminal event (`succeeded`, `failed`, `cancelled`).
struct JobEventStream {
    let queue: JobQueue
    let hub: EventHub
    let renderJob: @Sendable (Job) throws -> Data

    static let terminalTypes: Set<String> = ["succeeded", "failed", "cancelled"]

    func response(job: Job, after lastEventID: Int64) -> Response {
        let subscription = hub.subscribe(job.id)
        let queue = self.queue
        let snapshot = try? renderJob(job)
        let body = ResponseBody { writer in
            var buffer = ByteBuffer()
            buffer.writeString("retry: 2000\n")
            if let snapshot {
                buffer.writeString("event: snapshot\ndata: ")
                buffer.writeBytes(snapshot)
                buffer.writeString("\n\n")
            }
            try await writer.write(buffer)
            var cursor = lastEventID
            var signals = subscription.makeAsyncIterator()
            while true {
                let after = cursor
                let events = try await OwnTaskStack.run { try await queue.events(jobID: job.id, after: after, limit: 500) }
                if !events.isEmpty {
                    var out = ByteBuffer()
                    var finished = false
                    for event in events {
                        out.writeString("id: \(event.id)\nevent: \(event.type)\ndata: \(Self.oneLine(event.data))\n\n")
                        cursor = event.id
                        if Self.terminalTypes.contains(event.type) { finished = true; break }
                    }
                    try await writer.write(out)
                    if finished { break }
                    if events.count == 500 { continue }
                } else if job.state.isFinished {
                    // The job had finished when the stream opened and every event is sent
                    // (a resume after the terminal event): nothing more will come.
                    break
                }
                guard let signal = await signals.next() else { break }
                if case .tick = signal {
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-cache",
            .xAccelBuffering: "no",
        ], body: body)
    }

    /// SSE data lines cannot hold newlines; job event data is compact JSON, but be sure.
    static func oneLine(_ text: String) -> String {
        text.contains("\n") ? text.replacingOccurrences(of: "\n", with: " ") : text
    }
}

/// Runs `body` in a task of its own and waits for it. A Swift task keeps the memory its deepest
/// call stack ever needed for as long as it lives; a long-lived event stream lives in its
/// connection's task, so the deep database calls run in short tasks instead (measured: idle
/// streams went from 36 to 26 KB each; see BENCHMARKS.md).
enum OwnTaskStack {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await body() }.value
    }
}
