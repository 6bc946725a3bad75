import AtelierDatabase
import AtelierQueue
import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// Why a running attempt is being stopped.
public enum StopReason: UInt8, Sendable {
    case none = 0
    /// Someone cancelled the job: it ends `cancelled`.
    case cancelRequested
    /// The worker is shutting down: the job goes back to the queue, this attempt not counted.
    case shutdown
    /// The lease was rescued by another worker: nothing this attempt does will be recorded.
    case leaseLost
    /// The handler's time limit passed: a transient failure.
    case timeout
}

/// A running attempt's stop signal, set once (the first reason wins).
final class StopSignal: Sendable {
    private let reasonValue = Atomic<UInt8>(StopReason.none.rawValue)
    private let onStop = Mutex<(@Sendable () -> Void)?>(nil)

    var reason: StopReason { StopReason(rawValue: reasonValue.load(ordering: .acquiring)) ?? .none }
    var isStopped: Bool { reason != .none }

    func stop(_ reason: StopReason) {
        let (exchanged, _) = reasonValue.compareExchange(
            expected: StopReason.none.rawValue, desired: reason.rawValue, ordering: .acquiringAndReleasing)
        guard exchanged else { return }
        onStop.withLock { $0 }?()
    }

    /// `action` runs once when the signal stops (at once if it already has).
    func whenStopped(_ action: @escaping @Sendable () -> Void) {
        onStop.withLock { $0 = action }
        if isStopped { action() }
    }
}

/// What a handler gets: the job, a logger, progress reporting, cancellation, and CPU offload.
public struct JobContext: Sendable {
    public let job: ClaimedJob
    public let logger: Logger
    let queue: JobQueue
    let stopSignal: StopSignal
    /// Where the attempt is now, for the log line of a handler that does not stop when told.
    let activity: AttemptActivity

    init(job: ClaimedJob, logger: Logger, queue: JobQueue, stopSignal: StopSignal,
         activity: AttemptActivity = AttemptActivity()) {
        self.job = job
        self.logger = logger
        self.queue = queue
        self.stopSignal = stopSignal
        self.activity = activity
    }

    /// Decodes the payload; a payload that does not fit is a permanent failure naming the problem.
    /// The worker's database (its pool), for handlers that keep data of their own (the vector store).
    public var database: Database { queue.database }

    /// Another job of this job's owner — the one whose output this job continues (an index job
    /// reading the image and caption of the analysis it follows) — or nil when there is no such
    /// job or it belongs to someone else.
    public func ownersJob(_ id: UUID) async throws -> Job? {
        do {
            return try await queue.job(id: id, owner: job.owner)
        } catch QueueError.jobNotFound {
            return nil
        }
    }

    public func payload<T: Decodable>(as type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(job.payload.utf8))
        } catch let error as DecodingError {
            throw JobFailure.permanent("the \(job.kind) job's payload is not valid: \(Self.describe(error))")
        }
    }

    /// Records progress (0…100) and the current step; appends a `progress` event.
    /// Throws `CancellationError` if this attempt no longer holds its lease.
    public func progress(_ percent: Int, step: String? = nil, detail: String? = nil) async throws {
        if let step { activity.step(step) }
        activity.enter(.writingProgress)
        defer { activity.enter(.handlerCode) }
        let held = try await queue.reportProgress(job: job, percent: percent, step: step, detail: detail)
        if !held {
            stopSignal.stop(.leaseLost)
            throw CancellationError()
        }
    }

    /// True once the attempt should stop: cancelled, shutting down, lease lost or timed out.
    public var isCancelled: Bool { stopSignal.isStopped || Task.isCancelled }

    /// Throws `CancellationError` if the attempt should stop.
    public func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Runs CPU-heavy `work` on a thread pool, off Swift's cooperative pool and off SwiftNIO's
    /// event loops, so heartbeats and I/O keep flowing while pixels are crunched. `work` should
    /// poll the `isCancelled` closure it is given between chunks.
    public func offload<T: Sendable>(_ work: @escaping @Sendable (_ isCancelled: @Sendable () -> Bool) throws -> T) async throws -> T {
        try checkCancellation()
        let signal = stopSignal, activity = self.activity
        activity.enter(.waitingForPoolThread)
        defer { activity.enter(.handlerCode) }
        return try await NIOThreadPool.singleton.runIfActive {
            activity.enter(.onPoolThread)
            return try work { signal.isStopped }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let p = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "" : " at '\(p)'"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(key.stringValue)'\(path(context))"
        case .typeMismatch(_, let context): return "\(context.debugDescription)\(path(context))"
        case .valueNotFound(_, let context): return "missing value\(path(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription)\(path(context))"
        @unknown default: return "\(error)"
        }
    }
}
