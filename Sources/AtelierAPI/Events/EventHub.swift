import AtelierQueue
import Foundation
import Synchronization

/// Fans the process's one LISTEN connection out to event streams, by job: a notification for
/// a job wakes only the streams following that job. A periodic tick wakes every stream so idle
/// ones send their keep-alive comment (without a database read); a listener reconnect wakes
/// them all to re-read, spread over `reconnectSpread` so the database is not asked by every
/// stream at once.
///
/// It is also the register of open event streams: their number is capped overall and per owner
/// (`ATELIER_MAX_STREAMS`, `ATELIER_MAX_STREAMS_PER_OWNER`: 429 past either), and the streams of
/// a revoked token are ended (``endStreams(ofTokens:)``).
package final class EventHub: Sendable {
    enum Signal: Sendable {
        /// New events may exist for the job.
        case events
        /// Nothing happened for a while: time for a keep-alive.
        case tick
        /// The stream must end (its token was revoked, or the server is stopping).
        case end
    }

    struct Limits: Sendable {
        var streams = 10_000
        var streamsPerOwner = 100
    }

    private struct Subscriber {
        var continuation: AsyncStream<Signal>.Continuation
        /// Set for client event streams (counted against the limits); nil for internal waiters.
        var owner: String?
        var tokenHash: String?
    }

    private struct Subscribers {
        var byJob: [UUID: [UInt64: Subscriber]] = [:]
        var next: UInt64 = 0
        var count = 0
        var streams = 0
        var streamsByOwner: [String: Int] = [:]
    }

    private let subscribers = Mutex(Subscribers())
    /// The server is stopping: client streams have been ended and no new one opens.
    private let stopping = Atomic(false)
    let limits: Limits
    private let reconnectSpread: Duration

    init(notifier: Notifier, limits: Limits = Limits(), reconnectSpread: Duration = .seconds(2)) {
        self.limits = limits
        self.reconnectSpread = reconnectSpread
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected {
                Task { await self.wakeAllSpread() }
            } else if notification.channel == Notifier.Channel.jobEvents {
                for id in Set(notification.jobIDs) { self.wake(id) }
            }
        }
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }
    var streamCount: Int { subscribers.withLock { $0.streams } }

    /// Signals for `jobID` until the returned stream is dropped, for a server-side waiter
    /// (not counted against the stream limits). Only the newest signals matter.
    func subscribe(_ jobID: UUID) -> AsyncStream<Signal> {
        add(jobID, owner: nil, tokenHash: nil)
    }

    /// Signals for a client's event stream of `jobID`; 429 when the process or the owner has
    /// as many streams open as allowed.
    func openStream(_ jobID: UUID, for principal: Principal) throws -> AsyncStream<Signal> {
        if stopping.load(ordering: .acquiring) {
            throw APIError.unavailable("this server is stopping; open the stream again (another server answers)")
        }
        let refusal: String? = subscribers.withLock { state in
            if state.streams >= limits.streams {
                return "this server has \(limits.streams) event streams open, its limit; retry shortly or poll the job instead"
            }
            if state.streamsByOwner[principal.owner, default: 0] >= limits.streamsPerOwner {
                return "you have \(limits.streamsPerOwner) event streams open, the limit per account; close one or poll the job instead"
            }
            state.streams += 1
            state.streamsByOwner[principal.owner, default: 0] += 1
            return nil
        }
        if let refusal {
            throw APIError(.tooManyRequests, "StreamLimitError", refusal, headers: [.retryAfter: "5"])
        }
        return add(jobID, owner: principal.owner, tokenHash: principal.tokenHash, counted: true)
    }

    private func add(_ jobID: UUID, owner: String?, tokenHash: String?, counted: Bool = false) -> AsyncStream<Signal> {
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(8))
        let token = subscribers.withLock { state in
            state.next += 1
            state.byJob[jobID, default: [:]][state.next] = Subscriber(continuation: continuation, owner: counted ? owner : nil,
                                                                     tokenHash: tokenHash)
            state.count += 1
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { state in
                guard let removed = state.byJob[jobID]?.removeValue(forKey: token) else { return }
                state.count -= 1
                if let owner = removed.owner {
                    state.streams -= 1
                    let left = state.streamsByOwner[owner, default: 1] - 1
                    state.streamsByOwner[owner] = left > 0 ? left : nil
                }
                if state.byJob[jobID]?.isEmpty == true { state.byJob.removeValue(forKey: jobID) }
            }
        }
        return stream
    }

    /// The tokens that have client streams open now.
    var streamingTokens: Set<String> {
        subscribers.withLock { state in
            Set(state.byJob.values.flatMap { $0.values.compactMap { $0.owner == nil ? nil : $0.tokenHash } })
        }
    }

    /// Ends every client stream opened with one of these tokens.
    func endStreams(ofTokens hashes: Set<String>) {
        guard !hashes.isEmpty else { return }
        let targets = subscribers.withLock { state in
            state.byJob.values.flatMap { $0.values.filter { $0.tokenHash.map(hashes.contains) ?? false }.map(\.continuation) }
        }
        for continuation in targets { continuation.yield(.end) }
    }

    /// The server is stopping: every client stream ends now (its client resumes elsewhere with
    /// `Last-Event-ID`), so that the stop does not wait for clients that would stay for hours,
    /// and none opens from now on. Each stream calls this as the stop begins; the first ends
    /// them all, the others find it done.
    func endClientStreams() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let targets = subscribers.withLock { state in
            state.byJob.values.flatMap { $0.values.filter { $0.owner != nil }.map(\.continuation) }
        }
        for continuation in targets { continuation.yield(.end) }
    }

    /// Sends `.tick` to every stream every `interval`, until cancelled.
    func runTicks(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            tick()
        }
    }

    /// One keep-alive tick to every stream.
    func tick() { wakeAll(.tick) }

    private func wake(_ jobID: UUID) {
        let targets = subscribers.withLock { $0.byJob[jobID].map { $0.values.map(\.continuation) } ?? [] }
        for continuation in targets { continuation.yield(.events) }
    }

    private func wakeAll(_ signal: Signal) {
        let targets = subscribers.withLock { $0.byJob.values.flatMap { $0.values.map(\.continuation) } }
        for continuation in targets { continuation.yield(signal) }
    }

    /// After a reconnect every stream must re-read (notifications may have been missed), but
    /// not all in the same instant: they are woken in batches spread over `reconnectSpread`.
    /// `pause` waits between batches (tests watch it instead of a clock).
    func wakeAllSpread(batch: Int = 100,
                       pause: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }) async {
        let targets = subscribers.withLock { $0.byJob.values.flatMap { $0.values.map(\.continuation) } }
        guard !targets.isEmpty else { return }
        let batches = (targets.count + batch - 1) / batch
        let interval = reconnectSpread / max(1, batches)
        for start in stride(from: 0, to: targets.count, by: batch) {
            for continuation in targets[start..<min(start + batch, targets.count)] { continuation.yield(.events) }
            if start + batch < targets.count { await pause(interval) }
        }
    }
}
