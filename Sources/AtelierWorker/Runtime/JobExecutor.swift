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

    /// The outcome to record, or nil when nothing should be recorded (the lease was lost).
    func execute(_ job: ClaimedJob, stopSignal: StopSignal) async -> JobOutcome? {
        var logger = self.logger
        logger[metadataKey: "job_id"] = "\(job.id)"
        logger[metadataKey: "kind"] = "\(job.kind)"
        logger[metadataKey: "attempt"] = "\(job.attempt)"
        if let requestID = job.requestID { logger[metadataKey: "request_id"] = "\(requestID)" }

        guard let handler = handlers.handler(for: job.kind) else {
            return .failed(error: "no handler for job kind '\(job.kind)' on this worker")
        }
        let context = JobContext(job: job, logger: logger, queue: queue, stopSignal: stopSignal)
        let started = ContinuousClock.now

        let work = Task { try await handler.run(context) }
        stopSignal.whenStopped { work.cancel() }
        let timer = handler.timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                stopSignal.stop(.timeout)
            }
        }
        let result = await withTaskCancellationHandler {
            await work.result
        } onCancel: {
            stopSignal.stop(.shutdown)
        }
        timer?.cancel()
        let elapsed = ContinuousClock.now - started

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
            return failure(job: job, handler: handler, message: "timed out after \(handler.timeout ?? .zero)",
                           permanent: false, logger: logger)
        case (.failure(let error), .none):
            if let failure = error as? JobFailure {
                return self.failure(job: job, handler: handler, message: failure.message, permanent: failure.isPermanent, logger: logger)
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

    private func failure(job: ClaimedJob, handler: any JobHandler, message: String, permanent: Bool, logger: Logger) -> JobOutcome {
        if permanent || job.isLastAttempt {
            logger.warning("job failed", metadata: ["error": "\(message)", "permanent": "\(permanent)"])
            return .failed(error: message)
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
