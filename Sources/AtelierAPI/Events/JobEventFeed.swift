import AtelierQueue
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization

/// How one stream dialect writes a job's events: the SSE text for each, and whether the stream
/// ends after it. Mutating, so a dialect can remember what it has seen (Mondrian's last progress).
package protocol JobEventFormatter: Sendable {
    mutating func frames(for event: JobEvent) async throws -> (text: String, finished: Bool)
}

/// The loop behind every job event stream (`/v1/jobs/{id}/events`, Mondrian's `/stream/{id}`):
/// after the `prelude`, every event after `lastEventID` in order, then live ones as they happen,
/// woken by the process's one LISTEN connection through ``EventHub``; a `: keep-alive` comment
/// whenever the hub ticks (no database read: only a wake for the job reads); the end when the
/// formatter says so, when the caller's token is revoked — or at once when the job had
/// finished when the stream opened and every event is sent (a resume after the end).
/// Opening one counts against the hub's stream limits (429 past them).
package struct JobEventFeed {
    /// Reads a job's events after an id, at most `limit`: the only database read a stream makes.
    typealias EventReader = @Sendable (_ jobID: UUID, _ after: Int64, _ limit: Int) async throws -> [JobEvent]

    let hub: EventHub
    let readEvents: EventReader

    package init(queue: JobQueue, hub: EventHub) {
        self.init(hub: hub) { jobID, after, limit in try await queue.events(jobID: jobID, after: after, limit: limit) }
    }

    /// With another reader of the same events (tests count the reads).
    init(hub: EventHub, readEvents: @escaping EventReader) {
        self.hub = hub
        self.readEvents = readEvents
    }

    package func response<Formatter: JobEventFormatter>(jobID: UUID, principal: Principal, finishedAtStart: Bool, after lastEventID: Int64,
                                                prelude: String, formatter: Formatter) throws -> Response {
        let subscription = try hub.openStream(jobID, for: principal)
        let readEvents = self.readEvents
        // Written once, then let go: an idle stream should not keep its first snapshot for hours.
        let firstWrite = TakeOnce(ByteBuffer(string: prelude))
        let hub = self.hub
        let body = ResponseBody { writer in
            // The server's stop ends the stream instead of waiting for the client to leave.
            try await withGracefulShutdownHandler {
                try await Self.stream(subscription, to: &writer, jobID: jobID, after: lastEventID, finishedAtStart: finishedAtStart,
                                      firstWrite: firstWrite, formatter: formatter, readEvents: readEvents)
            } onGracefulShutdown: {
                hub.endClientStreams()
            }
        }
        return Response(status: .ok, headers: [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-cache",
            .xAccelBuffering: "no",
        ], body: body)
    }

    /// The stream's body: the prelude, the events, keep-alives, until the end.
    private static func stream<Formatter: JobEventFormatter>(
        _ subscription: AsyncStream<EventHub.Signal>, to writer: inout any ResponseBodyWriter, jobID: UUID, after lastEventID: Int64,
        finishedAtStart: Bool, firstWrite: TakeOnce<ByteBuffer>, formatter: Formatter, readEvents: @escaping EventReader
    ) async throws {
        var formatter = formatter
        if let first = firstWrite.take() { try await writer.write(first) }
        var cursor = lastEventID
        var signals = subscription.makeAsyncIterator()
        reading: while true {
            let after = cursor
            let events = try await OwnTaskStack.run { try await readEvents(jobID, after, 500) }
            if !events.isEmpty {
                var out = ByteBuffer()
                var finished = false
                for event in events {
                    let (text, ends) = try await formatter.frames(for: event)
                    out.writeString(text)
                    cursor = event.id
                    if ends { finished = true; break }
                }
                try await writer.write(out)
                if finished { break reading }
                if events.count == 500 { continue reading }
            } else if finishedAtStart {
                break reading
            }
            waiting: while true {
                switch await signals.next() {
                case .events?: break waiting
                case .tick?: try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                case .end?, nil: break reading
                }
            }
        }
        try await writer.finish(nil)
    }

    /// SSE data lines cannot hold newlines; event data is compact JSON, but be sure.
    package static func oneLine(_ text: String) -> String {
        text.contains("\n") ? text.replacingOccurrences(of: "\n", with: " ") : text
    }
}

/// A value handed out once, then released.
final class TakeOnce<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: Value) { self.value = Mutex(value) }

    func take() -> Value? { value.withLock { value in defer { value = nil }; return value } }
}

/// Runs `body` in a task of its own and waits for it. A Swift task keeps the memory its deepest
/// call stack ever needed for as long as it lives; a long-lived event stream lives in its
/// connection's task, so the deep database calls run in short tasks instead (what that saves an
/// idle stream: docs/benchmarks/api.md, SSE per idle stream).
package enum OwnTaskStack {
    package static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await body() }.value
    }
}
