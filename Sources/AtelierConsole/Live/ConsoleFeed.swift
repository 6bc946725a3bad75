import AtelierQueue
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The console's live updates (`GET /admin/live`, Server-Sent Events), from the API process's one
/// LISTEN connection — the job-event notifications that already drive the job streams — and, for
/// jobs that have no event yet, one look at the newest jobs per batch (a probe of the primary key, made only
/// while a console page is open: the enqueue path pays nothing for the console). Changes are
/// gathered and sent in batches, at most one `jobs` frame every
/// ``Timing/batch`` (the newest ``Timing/rowsPerBatch`` changed jobs, as list rows) and one
/// `overview` frame every ``Timing/overview`` (the overview's content, re-read once for every open
/// page), so a page keeps up at any job rate: the cost is per batch, not per job. Each frame is
/// rendered once and written to every open console page; idle pages get a keep-alive comment.
/// The loop runs only while a page is open.
final class ConsoleFeed: Sendable {
    struct Timing: Sendable {
        var batch: Duration = .milliseconds(500)
        var overview: Duration = .seconds(2)
        var keepAlive: Duration = .seconds(15)
        var rowsPerBatch = 50
        var maxStreams = 100
    }

    private struct State {
        var subscribers: [UInt64: AsyncStream<ByteBuffer>.Continuation] = [:]
        var next: UInt64 = 0
        /// Jobs changed since the last batch, oldest first (each once).
        var changed: [UUID] = []
        var changedSet: Set<UUID> = []
        var overviewDirty = true
        var running = false
    }

    private let state = Mutex(State())
    private let queue: JobQueue
    private let logger: Logger
    let timing: Timing

    init(queue: JobQueue, notifier: Notifier, logger: Logger, timing: Timing = Timing()) {
        self.queue = queue
        self.logger = logger
        self.timing = timing
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected {
                self.state.withLock { $0.overviewDirty = true }
            } else if notification.channel == Notifier.Channel.jobEvents {
                self.noteChanges(notification.jobIDs)
            }
        }
    }

    private func noteChanges(_ ids: [UUID]) {
        state.withLock { state in
            guard !state.subscribers.isEmpty else { return }
            state.overviewDirty = true
            for id in ids where state.changedSet.insert(id).inserted { state.changed.append(id) }
            // Only the newest rows are ever sent: older changes need not be remembered.
            let cap = timing.rowsPerBatch * 4
            if state.changed.count > cap {
                for id in state.changed.prefix(state.changed.count - cap) { state.changedSet.remove(id) }
                state.changed.removeFirst(state.changed.count - cap)
            }
        }
    }

    /// A live stream for one console page until `expires` (the session's end), or 429 past the limit.
    func response(expires: Date) throws -> Response {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(16))
        let (token, startLoop): (UInt64?, Bool) = state.withLock { state in
            guard state.subscribers.count < timing.maxStreams else { return (nil, false) }
            state.next += 1
            state.subscribers[state.next] = continuation
            state.overviewDirty = true
            let start = !state.running
            state.running = true
            return (state.next, start)
        }
        guard let token else { throw ConsoleError.tooManyStreams }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: token) }
        }
        if startLoop { Task { await self.run() } }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
            // A server shutting down ends every console stream (the page reconnects elsewhere).
            try await withGracefulShutdownHandler {
                for await frame in stream {
                    guard Date() < expires else { break }
                    try await writer.write(frame)
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            continuation.finish()
            try await writer.finish(nil)
        }
        var headers = ConsolePage.securityHeaders
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[.xAccelBuffering] = "no"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Batches until no page is open.
    private func run() async {
        let clock = ContinuousClock()
        var lastOverview = clock.now - timing.overview
        var lastFrame = clock.now
        // The newest job when the loop started: jobs created after it are new.
        var newest = NewestJobs(queue: queue, limit: timing.rowsPerBatch)
        _ = try? await newest.look()
        while true {
            try? await Task.sleep(for: timing.batch)
            let (ids, overviewDue, stop): ([UUID], Bool, Bool) = state.withLock { state in
                if state.subscribers.isEmpty {
                    state.running = false
                    state.changed.removeAll()
                    state.changedSet.removeAll()
                    return ([], false, true)
                }
                let ids = Array(state.changed.suffix(timing.rowsPerBatch))
                state.changed.removeAll(keepingCapacity: true)
                state.changedSet.removeAll(keepingCapacity: true)
                let due = state.overviewDirty && clock.now - lastOverview >= timing.overview
                if due { state.overviewDirty = false }
                return (ids, due, false)
            }
            if stop { return }
            var frame = ByteBuffer()
            do {
                let created = try await newest.look()
                let known = Set(created)
                let jobs = try await queue.jobs(ids: created + ids.filter { !known.contains($0) })
                if !jobs.isEmpty {
                    frame.writeString(try Self.jobsFrame(Array(jobs.prefix(timing.rowsPerBatch))))
                }
                // New jobs change the overview too; when it was sent too recently, it goes next time.
                let overviewDue = overviewDue || (!created.isEmpty && clock.now - lastOverview >= timing.overview)
                if !created.isEmpty, !overviewDue { state.withLock { $0.overviewDirty = true } }
                if overviewDue {
                    lastOverview = clock.now
                    frame.writeString(try Self.overviewFrame(try await Overview.load(queue)))
                }
            } catch {
                logger.warning("console live update failed", metadata: ["error": "\(error)"])
                state.withLock { $0.overviewDirty = true }
            }
            if frame.readableBytes == 0, clock.now - lastFrame >= timing.keepAlive {
                frame.writeString(": keep-alive\n\n")
            }
            guard frame.readableBytes > 0 else { continue }
            lastFrame = clock.now
            broadcast(frame)
        }
    }

    private func broadcast(_ frame: ByteBuffer) {
        let targets = state.withLock { Array($0.subscribers.values) }
        for continuation in targets { continuation.yield(frame) }
    }

    struct LiveRow: Encodable { var id: String; var state: String; var progress: Int; var html: String }
    struct LiveOverview: Encodable { var html: String }

    static func jobsFrame(_ jobs: [Job]) throws -> String {
        let rows = jobs.map { LiveRow(id: $0.id.uuidString.lowercased(), state: $0.state.rawValue, progress: $0.progress, html: JobRow.render($0)) }
        return "event: jobs\ndata: " + String(decoding: try JSONEncoder().encode(rows), as: UTF8.self) + "\n\n"
    }

    static func overviewFrame(_ overview: Overview) throws -> String {
        "event: overview\ndata: " + String(decoding: try JSONEncoder().encode(LiveOverview(html: OverviewView.render(overview))), as: UTF8.self) + "\n\n"
    }
}
