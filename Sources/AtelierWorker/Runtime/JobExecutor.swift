import AtelierQueue
import AtelierStorage
import Foundation
import Logging

/// Runs one claimed attempt through its handler and decides its outcome:
/// success, retry with backoff, permanent failure, cancellation, release on shutdown, or a
/// snooze while the blob store is down.
struct JobExecutor: Sendable {
    let queue: JobQueue
    let handlers: HandlerRegistry
    let logger: Logger

    /// How long a handler told to stop may take to return before it is abandoned.
    let stopGrace: Duration

    /// What an attempt came to: the outcome to record (nil when nothing should be recorded: the
    /// lease was lost), and whether the handler was abandoned because it did not stop.
    struct Executed: Sendable {
        var outcome: JobOutcome?
        var abandoned = false
    }

    func execute(_ job: ClaimedJob, stopSignal: StopSignal) async -> Executed {
        var logger = self.logger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "kind"] = "\(job.kind)"
        logger[metadataKey: "attempt"] = "\(job.attempt)"
        if let requestID = job.requestID { logger[metadataKey: "request_id"] = "\(requestID)" }

        guard let handler = handlers.handler(for: job.kind) else {
            return Executed(outcome: .failed(error: "no handler for job kind '\(job.kind)' on this worker"))
        }
        let activity = AttemptActivity()
        let context = JobContext(job: job, logger: logger, queue: queue, stopSignal: stopSignal, activity: activity)
        let started = ContinuousClock.now

        // The handler runs in a task of its own, and the attempt ends at the first of: the handler
        // returns, or it was told to stop (timeout, cancellation, lost lease, shutdown) and has not
        // returned `stopGrace` later. A handler blocked where cancellation does not reach (a C
        // call, a thread that never comes back) must not hold its job — its lease renewed by this
        // process's heartbeats — for ever.
        let ending = AttemptEnding()
        let work = Task { try await handler.run(context) }
        Task { ending.finish(.returned(await work.result)) }
        let grace = self.stopGrace
        stopSignal.whenStopped {
            work.cancel()
            ending.startGrace(grace)
        }
        let timer = Self.timeout(of: job, handler: handler).map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                stopSignal.stop(.timeout)
            }
        }
        let end = await withTaskCancellationHandler {
            await ending.wait()
        } onCancel: {
            stopSignal.stop(.shutdown)
        }
        timer?.cancel()
        ending.cancelGrace()
        let elapsed = ContinuousClock.now - started

        let result: Result<JobResult, any Error>
        switch end {
        case .returned(let returned):
            result = returned
        case .abandoned:
            logger.error("the handler did not stop when told; its attempt ends without it and this process will be replaced", metadata: [
                "reason": "\(stopSignal.reason)", "grace": "\(grace)", "where": "\(activity.description)",
                "elapsed_ms": "\(elapsed.milliseconds)"])
            // Recorded as if it had stopped when told: a timed-out attempt is retried (elsewhere:
            // this process claims nothing more), a cancelled one ends cancelled.
            result = .failure(CancellationError())
            return Executed(outcome: outcome(of: result, job: job, handler: handler, stopSignal: stopSignal,
                                             elapsed: elapsed, logger: logger), abandoned: true)
        }
        return Executed(outcome: outcome(of: result, job: job, handler: handler, stopSignal: stopSignal,
                                         elapsed: elapsed, logger: logger))
    }

    /// An attempt's limit: the shorter of the job's own (`timeout_s`) and its kind's — the one an
    /// operator set (`atelier limits set KIND --timeout`), else the handler's. A job may ask for
    /// less time than its kind allows, never more: the kind's limit is the operator's bound on
    /// how long a slot is held.
    static func timeout(of job: ClaimedJob, handler: any JobHandler) -> Duration? {
        [job.timeout, job.kindTimeout ?? handler.timeout].compactMap { $0 }.min()
    }

    private func outcome(of result: Result<JobResult, any Error>, job: ClaimedJob, handler: any JobHandler,
                         stopSignal: StopSignal, elapsed: Duration, logger: Logger) -> JobOutcome? {
        switch (result, stopSignal.reason) {
        case (.success(let value), _):
            if let json = value.json, !Self.isJSONObject(json) {
                return .failed(error: "the \(job.kind) handler returned a result that is not a JSON object")
            }
            logger.debug("job succeeded", metadata: ["elapsed_ms": "\(elapsed.milliseconds)"])
            return .succeeded(result: value.json)
        case (.failure, .leaseLost):
            logger.warning("stopped a job whose lease was rescued by another worker")
            return nil
        case (.failure, .cancelRequested):
            logger.info("job cancelled")
            return .cancelled(reason: "cancelled by request")
        case (.failure, .shutdown):
            logger.info("job released: worker shutting down")
            return .released
        case (.failure, .timeout):
            return failure(job: job, handler: handler, message: "timed out after \(Self.timeout(of: job, handler: handler) ?? .zero)",
                           permanent: false, logger: logger)
        case (.failure(let error), .none):
            if let failure = error as? JobFailure {
                return self.failure(job: job, handler: handler, message: failure.message, permanent: failure.isPermanent,
                                    result: failure.result, logger: logger)
            }
            if let permanent = error as? any PermanentError {
                return self.failure(job: job, handler: handler, message: permanent.message, permanent: true, logger: logger)
            }
            if error is CancellationError {
                return .released
            }
            if let storage = error as? StorageError, storage.isOutage {
                // The blob store is down or refuses us (the object store of another host): the
                // job is fine, so it is snoozed — back to the queue for later without spending
                // an attempt, however long the outage lasts. Its text may name a path; the
                // job's error does not.
                let delay = SnoozePolicy.default.delay(snooze: job.snoozeStreak + 1)
                logger.warning("blob store unavailable during a job; snoozed", metadata: [
                    "error": "\(storage)", "snooze": "\(job.snoozeStreak + 1)", "retry_in": "\(delay)"])
                return .snoozed(reason: Self.storeOutage, delay: delay)
            }
            // Not one of ours: its text may name files or quote a library, so the job (which its
            // client reads) says only what kind of error it was; the log has the rest.
            logger.error("job attempt failed on an unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            return failure(job: job, handler: handler,
                           message: "the worker hit an internal error (\(type(of: error))); it is retried, and the worker's log has the details",
                           permanent: false, logger: logger)
        }
    }

    private func failure(job: ClaimedJob, handler: any JobHandler, message: String, permanent: Bool, result: String? = nil,
                         logger: Logger) -> JobOutcome {
        if permanent || job.isLastAttempt {
            logger.warning("job failed", metadata: ["error": "\(message)", "permanent": "\(permanent)"])
            return .failed(error: message, result: result.flatMap { Self.isJSONObject($0) ? $0 : nil })
        }
        let delay = handler.retryPolicy.delay(afterAttempt: job.handlerAttempt)
        logger.info("job will be retried", metadata: ["error": "\(message)", "retry_in": "\(delay)"])
        return .retry(error: message, delay: delay)
    }

    /// What a job's error says when the blob store could not be used during its attempt.
    static let storeOutage = "the blob store could not be reached; the job is retried later"

    private static func isJSONObject(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any]
    }
}
