import AtelierQueue
import Foundation
import Synchronization

/// Fans the process's one LISTEN connection out to event streams, by job: a notification for
/// a job wakes only the streams following that job. A periodic tick wakes every stream so idle
/// ones send their keep-alive comment; a listener reconnect wakes them all to re-read.
final class EventHub: Sendable {
    enum Signal: Sendable {
        /// New events may exist for the job.
        case events
        /// Nothing happened for a while: time for a keep-alive.
        case tick
    }

    private struct Subscribers {
        var byJob: [UUID: [UInt64: AsyncStream<Signal>.Continuation]] = [:]
        var next: UInt64 = 0
        var count = 0
    }

    private let subscribers = Mutex(Subscribers())

    init(notifier: Notifier) {
        notifier.observe { [weak self] notification in
            guard let self else { return }
            if notification == .reconnected {
                self.wakeAll(.events)
            } else if notification.channel == Notifier.Channel.jobEvents {
                for id in Set(JobViewCache.jobIDs(in: notification.payload)) { self.wake(id) }
            }
        }
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Signals for `jobID` until the returned stream is dropped. Only the newest signal matters,
    /// so a small buffer is enough.
    func subscribe(_ jobID: UUID) -> AsyncStream<Signal> {
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(8))
        let token = subscribers.withLock { state in
            state.next += 1
            state.byJob[jobID, default: [:]][state.next] = continuation
            state.count += 1
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { state in
                guard state.byJob[jobID]?.removeValue(forKey: token) != nil else { return }
                state.count -= 1
                if state.byJob[jobID]?.isEmpty == true { state.byJob.removeValue(forKey: jobID) }
            }
        }
        return stream
    }

    /// Sends `.tick` to every stream every `interval`, until cancelled.
    func runTicks(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            wakeAll(.tick)
        }
    }

    private func wake(_ jobID: UUID) {
        let targets = subscribers.withLock { $0.byJob[jobID].map { Array($0.values) } ?? [] }
        for continuation in targets { continuation.yield(.events) }
    }

    private func wakeAll(_ signal: Signal) {
        let targets = subscribers.withLock { $0.byJob.values.flatMap(\.values) }
        for continuation in targets { continuation.yield(signal) }
    }
}
