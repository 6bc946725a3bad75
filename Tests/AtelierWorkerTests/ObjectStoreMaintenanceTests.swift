import AtelierHandlers
import AtelierQueue
import AtelierStorage
import AtelierTestSupport
@testable import AtelierWorker
import Foundation
import Logging
import XCTest

/// Nothing lost on the S3 blob store (the SeaweedFS of ./ops/test): the orphan sweep lists the
/// bucket and removes only folders no job references once they are older than the grace
/// period; the purge removes a purged job's objects; a worker whose store is down retries the
/// job later instead of failing it, without spending its attempts. The store sets objects' times itself, so the sweep is asked
/// about a later instant instead of objects being aged.
final class ObjectStoreMaintenanceTests: DatabaseTestCase {
    private var store: S3BlobStore!
    private let logger: Logger = {
        var logger = Logger(label: "test-object-store-maintenance")
        logger.logLevel = .critical
        return logger
    }()

    override func setUp() async throws {
        try await super.setUp()
        store = try TestObjectStore.make()
    }

    override func tearDown() async throws {
        if let store { await TestObjectStore.clean(store) }
        try await super.tearDown()
    }

    private func exists(_ key: BlobKey) async throws -> Bool {
        try await store.info(key) != nil
    }

    func testTheSweepRemovesOnlyUnreferencedFoldersPastTheGracePeriod() async throws {
        let referenced = try await queue.enqueue(NewJob(kind: "k")).id
        let orphan = UUID()
        for id in [referenced, orphan] {
            try await store.put(Data("jpeg".utf8), at: BlobKey.jobInput(id, fileExtension: "jpg"))
        }
        try await store.put(Data("x".utf8), at: try BlobKey("jobs/not-a-job-id/input.jpg"))
        let sweeper = OrphanSweeper(queue: queue, blobs: store, grace: .seconds(3600), logger: logger)

        let now = try await sweeper.sweep(now: Date())
        XCTAssertEqual(now, OrphanSweeper.Report(), "everything is younger than the grace period: its job may be being inserted")
        try await XCTAssertTrueAsync(try await exists(BlobKey.jobInput(orphan, fileExtension: "jpg")))

        let later = try await sweeper.sweep(now: Date().addingTimeInterval(2 * 3600))
        XCTAssertEqual(later.orphanFolders, [BlobKey.jobFolder(orphan)])
        try await XCTAssertEqualAsync(try await exists(BlobKey.jobInput(orphan, fileExtension: "jpg")), false,
                                      "no job references it and it is older than the grace period")
        try await XCTAssertTrueAsync(try await exists(BlobKey.jobInput(referenced, fileExtension: "jpg")), "its job exists")
        try await XCTAssertTrueAsync(try await exists(try BlobKey("jobs/not-a-job-id/input.jpg")), "not the sweep's to judge")

        let again = try await sweeper.sweep(now: Date().addingTimeInterval(2 * 3600))
        XCTAssertEqual(again, OrphanSweeper.Report(), "nothing left to do")
    }

    func testThePurgeRemovesAPurgedJobsObjects() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let claimed = try await queue.claim(worker: "w", queues: ["default"], kinds: ["k"], limit: 1, lease: .seconds(30))
        try await store.put(Data("in".utf8), at: BlobKey.jobInput(id, fileExtension: "jpg"))
        try await store.put(Data("out".utf8), at: BlobKey.jobResult(id, fileExtension: "jpg"))
        _ = try await queue.complete(claimed.map { Completion(job: $0, outcome: .succeeded(result: nil)) }, worker: "w")
        try await db.execute("UPDATE jobs SET finished_at = now() - interval '8 days' WHERE id = \(id)")

        let purged = try await JobPurger(queue: queue, blobs: store, logger: logger).purge(olderThan: .seconds(7 * 86400))
        XCTAssertEqual(purged, [id])
        try await XCTAssertEqualAsync(try await exists(BlobKey.jobInput(id, fileExtension: "jpg")), false)
        try await XCTAssertEqualAsync(try await exists(BlobKey.jobResult(id, fileExtension: "jpg")), false)
        let folders = try await store.folders(under: "jobs", changedBefore: Date().addingTimeInterval(3600))
        XCTAssertEqual(folders, [])
    }

    /// The store goes down (``ObjectStoreGate``) while a worker runs an `echo` job: the read
    /// fails as a transient error, so the job goes back to the queue for a later attempt (its
    /// error saying why, with no address or path), not failed; once the store is back, the
    /// next attempt succeeds.
    func testAWorkerWhoseStoreIsDownRetriesTheJobLater() async throws {
        let gate = try ObjectStoreGate()
        defer { gate.stop() }
        let id = UUID()
        let key = BlobKey.jobInput(id, fileExtension: "png")
        try await store.put(Data("png".utf8), at: key)
        var gated = store.configuration
        gated.endpoint = gate.endpoint
        gated.retries = S3RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        let behind = try TestObjectStore.make(gated)
        gate.shut()

        let payload = #"{"input": {"blob": "\#(key.path)", "format": "png", "content_type": "image/png", "bytes": 3}}"#
        _ = try await queue.enqueue(NewJob(id: id, kind: "echo", payload: payload, maxAttempts: 5))
        let worker = try InProcessWorker.start(db, handlers: DiagnosticHandlers.all(environment: [:], blobs: behind))
        var requeued: Job?
        try await db.eventually("an attempt fails and the job is queued again") {
            let job = try await self.queue.job(id: id)
            if job.attempt >= 1 && job.state == .queued { requeued = job }
            return requeued != nil
        }
        try await worker.stop()
        let job = try XCTUnwrap(requeued)
        XCTAssertEqual(job.state, .queued, "a store that is down is a transient failure")
        XCTAssertGreaterThan(job.runAt, Date(), "retried later, after the backoff")
        XCTAssertEqual(job.error, JobExecutor.storeOutage)
        XCTAssertFalse(job.errors.contains("127.0.0.1"), "the job's errors name no address: \(job.errors)")

        gate.open()
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id)")
        let again = try InProcessWorker.start(db, handlers: DiagnosticHandlers.all(environment: [:], blobs: behind))
        try await db.eventually("the next attempt, with the store back, succeeds") {
            try await self.queue.job(id: id).state == .succeeded
        }
        try await again.stop()
        try await XCTAssertTrueAsync(try await exists(BlobKey.jobResult(id, fileExtension: "png")))
    }

    /// However long the store is down, a job does not use up its attempts: with the store down
    /// (``ObjectStoreGate``) a job allowed a single attempt is snoozed — back to the queue, its
    /// error saying why, its attempts and crashes untouched — not failed; once the store is
    /// back, it succeeds.
    func testAStoreOutageDoesNotSpendTheJobsAttempts() async throws {
        let gate = try ObjectStoreGate()
        defer { gate.stop() }
        let id = UUID()
        let key = BlobKey.jobInput(id, fileExtension: "png")
        try await store.put(Data("png".utf8), at: key)
        var gated = store.configuration
        gated.endpoint = gate.endpoint
        gated.retries = S3RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        let behind = try TestObjectStore.make(gated)
        gate.shut()

        let payload = #"{"input": {"blob": "\#(key.path)", "format": "png", "content_type": "image/png", "bytes": 3}}"#
        _ = try await queue.enqueue(NewJob(id: id, kind: "echo", payload: payload, maxAttempts: 1))
        let worker = try InProcessWorker.start(db, handlers: DiagnosticHandlers.all(environment: [:], blobs: behind))
        try await db.eventually("an attempt meets the outage and is snoozed") {
            try await self.queue.job(id: id).snoozes >= 1
        }
        try await worker.stop()
        let job = try await queue.job(id: id)
        XCTAssertEqual(job.state, .queued, "its only attempt met the outage: the job waits, it is not failed")
        XCTAssertEqual(job.error, JobExecutor.storeOutage)
        XCTAssertEqual(job.attempt - job.crashes - job.snoozes, 0, "no handler attempt spent")
        XCTAssertEqual(job.crashes, 0)
        XCTAssertEqual(job.errors, "[]", "a snooze is not a failure")
        let events = try await queue.events(jobID: id)
        XCTAssertTrue(events.contains { $0.type == "requeued" && $0.data.contains(#""reason": "snoozed""#) },
                      "the history says why it waits: \(events.map(\.data))")

        gate.open()
        try await db.execute("UPDATE jobs SET run_at = now() WHERE id = \(id)")
        let again = try InProcessWorker.start(db, handlers: DiagnosticHandlers.all(environment: [:], blobs: behind))
        try await db.eventually("with the store back, the job succeeds") {
            try await self.queue.job(id: id).state == .succeeded
        }
        try await again.stop()
        try await XCTAssertTrueAsync(try await exists(BlobKey.jobResult(id, fileExtension: "png")))
    }
}
