import AtelierQueue
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The console's live updates (`GET /admin/live`, Server-Sent Events), from the API process's one
/// LISTEN connection — the job-event notifications that already drive the job streams — and, for
/// jobs that have no event yet, one look at the newest jobs per batch (``NewestJobs``: the ids of
/// the newest 50, read from the primary key only while a console page is open, so the enqueue
/// path pays nothing for the console). Changes are gathered and sent in batches, at most one
/// `jobs` frame every ``Timing/batch`` (the newest ``Timing/rowsPerBatch`` changed jobs, as list
/// rows) and one `overview` frame every ``Timing/overview`` (the overview's content, re-read once
/// for every open page), so a page keeps up at any job rate: the cost is per batch, not per job.
/// Each frame is rendered once and written to every open console page; idle pages get a
/// keep-alive comment. The loop runs only while a page is open.
///
/// A stream opened by a page starts with what the page shows as it stands now (``Opening``):
/// whatever changed between the page's rendering and its stream — or while a stream was
/// reconnecting — was sent to the pages open then, not to this one.
final class ConsoleFeed: Sendable {
    struct Timing: Sendable {
        var batch: Duration = .milliseconds(500)
        var overview: Duration = .seconds(2)
        var keepAlive: Duration = .seconds(15)
        var rowsPerBatch = 50
        var maxStreams = 100
    }

    /// What a new stream's first `jobs` frame holds, before any change: the newest jobs (the job
    /// list's first page: `?show=newest`), one job (its page: `?show=<id>`), or nothing (the
    /// overview, whose next `overview` frame is due anyway).
    enum Opening: Sendable, Equatable {
        case nothing
        case newestJobs
        case job(UUID)

        /// The `show` parameter of `/admin/live`.
        init(show: String?) {
            switch show {
            case "newest": self = .newestJobs
            case let text?: self = JobID.uuid(text).map(Opening.job) ?? .nothing
            case nil: self = .nothing
            }
        }
    }

    private struct State {
        var subscribers: [UInt64: AsyncStream<ByteBuffer>.Continuation] = [:]
        /// Streams opened since the last batch: they get their opening in the next one.
        var opened: [UInt64: Opening] = [:]
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

    /// A live stream for one console page while `signedIn` says its session holds — checked
    /// before every frame, so sign-out, a disabled operator or the session's end stop it at the
    /// next frame (before, only the token's expiry did) — or 429 past the limit.
    func response(signedIn: @escaping @Sendable () async -> Bool, opening: Opening = .nothing) throws -> Response {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(16))
        let (token, startLoop): (UInt64?, Bool) = state.withLock { state in
            guard state.subscribers.count < timing.maxStreams else { return (nil, false) }
            state.next += 1
            state.subscribers[state.next] = continuation
            state.opened[state.next] = opening
            state.overviewDirty = true
            let start = !state.running
            state.running = true
            return (state.next, start)
        }
        guard let token else { throw ConsoleError.tooManyStreams }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers.removeValue(forKey: token)
                state.opened.removeValue(forKey: token)
            }
        }
        if startLoop { Task { await self.run() } }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
            // A server shutting down ends every console stream (the page reconnects elsewhere).
            try await withGracefulShutdownHandler {
                for await frame in stream {
                    guard await signedIn() else { break }
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
        var newest = NewestJobs(queue: queue, limit: timing.rowsPerBatch)
        while true {
            try? await Task.sleep(for: timing.batch)
            let (ids, opened, overviewDue, stop): ([UUID], [UInt64: Opening], Bool, Bool) = state.withLock { state in
                if state.subscribers.isEmpty {
                    state.running = false
                    state.changed.removeAll()
                    state.changedSet.removeAll()
                    return ([], [:], false, true)
                }
                let ids = Array(state.changed.suffix(timing.rowsPerBatch))
                state.changed.removeAll(keepingCapacity: true)
                state.changedSet.removeAll(keepingCapacity: true)
                let opened = state.opened
                state.opened.removeAll()
                let due = state.overviewDirty && clock.now - lastOverview >= timing.overview
                if due { state.overviewDirty = false }
                return (ids, opened, due, false)
            }
            if stop { return }
            var frame = ByteBuffer()
            var openings: [UInt64: ByteBuffer] = [:]
            let before = newest
            do {
                let created = try await newest.look()
                let update = Set(created + ids)
                // One read for the update and for what the new streams start with.
                var wanted = Array(update)
                if opened.values.contains(.newestJobs) { wanted += newest.ids }
                for case .job(let id) in opened.values { wanted.append(id) }
                let jobs = try await queue.jobs(ids: Array(Set(wanted)))  // newest first
                let updated = Array(jobs.filter { update.contains($0.id) }.prefix(timing.rowsPerBatch))
                if !updated.isEmpty { frame.writeString(try Self.jobsFrame(updated)) }
                // New jobs change the overview too; when it was sent too recently, it goes next time.
                let overviewDue = overviewDue || (!created.isEmpty && clock.now - lastOverview >= timing.overview)
                if !created.isEmpty, !overviewDue { state.withLock { $0.overviewDirty = true } }
                var overview = ""
                if overviewDue {
                    lastOverview = clock.now
                    overview = try Self.overviewFrame(try await Overview.load(queue))
                }
                let newestSet = Set(newest.ids)
                for (token, opening) in opened {
                    let shown: (Job) -> Bool = switch opening {
                    case .nothing: { _ in false }
                    case .newestJobs: { newestSet.contains($0.id) }
                    case .job(let id): { $0.id == id }
                    }
                    // What the page shows as it stands now, and what changed since the last batch.
                    let rows = jobs.filter { shown($0) || update.contains($0.id) }
                    var opening = ByteBuffer()
                    if !rows.isEmpty { opening.writeString(try Self.jobsFrame(rows)) }
                    opening.writeString(overview)
                    if opening.readableBytes > 0 { openings[token] = opening }
                }
                frame.writeString(overview)
            } catch {
                logger.warning("console live update failed", metadata: ["error": "\(error)"])
                // Nothing of this batch was sent: its new and changed jobs go next time, and the
                // streams just opened still wait for their opening.
                newest = before
                noteChanges(ids)
                state.withLock { state in
                    state.overviewDirty = true
                    for (token, opening) in opened where state.subscribers[token] != nil { state.opened[token] = opening }
                }
                frame.clear()
                openings.removeAll()
            }
            for (token, opening) in openings { send(opening, to: token) }
            if frame.readableBytes == 0, openings.isEmpty, clock.now - lastFrame >= timing.keepAlive {
                frame.writeString(": keep-alive\n\n")
            }
            guard frame.readableBytes > 0 || !openings.isEmpty else { continue }
            lastFrame = clock.now
            if frame.readableBytes > 0 { broadcast(frame, except: Set(openings.keys)) }
        }
    }

    /// Writes `frame` to every open stream but those in `except` (they had their opening instead).
    private func broadcast(_ frame: ByteBuffer, except: Set<UInt64>) {
        let targets = state.withLock { state in state.subscribers.filter { !except.contains($0.key) }.map(\.value) }
        for continuation in targets { continuation.yield(frame) }
    }

    private func send(_ frame: ByteBuffer, to token: UInt64) {
        state.withLock { $0.subscribers[token] }?.yield(frame)
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
