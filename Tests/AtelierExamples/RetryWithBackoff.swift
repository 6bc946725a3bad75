import AtelierQueue
import AtelierTestSupport
import AtelierWorker
import Foundation
import XCTest

/// Retry with backoff after a transient failure: a handler that throws `JobFailure.transient`
/// (or any error that is not permanent) gets its job back after its `retryPolicy`'s delay —
/// `base × factor^(attempt−1)`, jittered, capped — until `maxAttempts`. Every error is kept in
/// the job's `errors`, and the job's events show each `retrying` with the time it may run again.
final class RetryWithBackoff: DatabaseTestCase {
    /// Fails its first two attempts as a flaky upstream would, then succeeds.
    struct FlakyUpload: JobHandler {
        let kind = "flaky_upload"
        /// 200 ms, then 400 ms (no jitter, so the example can show the exact schedule).
        var retryPolicy: RetryPolicy { RetryPolicy(base: .milliseconds(200), factor: 2, jitter: 0) }

        func run(_ context: JobContext) async throws -> JobResult {
            guard context.job.attempt >= 3 else { throw JobFailure.transient("upstream answered 503") }
            return try .encode(["uploaded_on_attempt": context.job.attempt])
        }
    }

    func testATransientFailureIsRetriedAfterTheBackoff() async throws {
        let worker = try Worker(queue: queue, handlers: HandlerRegistry([FlakyUpload()]), configuration: .example, logger: logger)
        start(worker)

        let id = try await queue.enqueue(NewJob(kind: "flaky_upload", maxAttempts: 5)).id
        let job = try await waitUntilFinished(id)
        XCTAssertEqual(job.state, .succeeded, job.error ?? "")
        XCTAssertEqual(job.attempt, 3)
        XCTAssertEqual(job.result, #"{"uploaded_on_attempt": 3}"#)
        let errors = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(job.errors.utf8)) as? [[String: Any]])
        XCTAssertEqual(errors.map { $0["error"] as? String }, ["upstream answered 503", "upstream answered 503"])

        let events = try await queue.events(jobID: id)
        XCTAssertEqual(events.map(\.type), ["running", "retrying", "running", "retrying", "running", "succeeded"])
        guard events.count == 6 else { return }
        // No attempt starts before its backoff has passed: 200 ms after the first failure, 400 ms after the second.
        let waits = [(events[1], events[2]), (events[3], events[4])].map { $1.createdAt.timeIntervalSince($0.createdAt) }
        XCTAssertGreaterThanOrEqual(waits[0], 0.2 - 0.001)
        XCTAssertGreaterThanOrEqual(waits[1], 0.4 - 0.001)
    }
}
