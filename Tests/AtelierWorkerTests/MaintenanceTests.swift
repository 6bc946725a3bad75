import AtelierDatabase
import AtelierStorage
import AtelierTestSupport
import AtelierQueue
@testable import AtelierWorker
import Foundation
import Logging
import Synchronization
import XCTest

/// The maintenance leader and the orphan sweep, against a real PostgreSQL and a real blob
/// directory. Who leads is decided by the advisory lock (ticks are called one after the
/// other); ages are set on the files themselves, so nothing waits for a clock.
final class MaintenanceTests: DatabaseTestCase {
    private var directory: URL!
    private var blobs: LocalBlobStore!

    override func setUp() async throws {
        try await super.setUp()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-sweep-\(UUID().uuidString)")
        blobs = try LocalBlobStore(root: directory)
    }

    override func tearDown() async throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try await super.tearDown()
    }

    private func maintenance(blobs: (any BlobStore)? = nil, configure: (inout WorkerConfiguration) -> Void = { _ in }) -> Maintenance {
        var configuration = WorkerConfiguration()
        configure(&configuration)
        var logger = Logger(label: "test-maintenance")
        logger.logLevel = .critical
        return Maintenance(queue: queue, configuration: configuration, blobs: blobs ?? self.blobs, logger: logger)
    }

    /// Makes `path` (under the blob root) look `age` old.
    private func age(_ path: String, by age: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)],
                                              ofItemAtPath: directory.appendingPathComponent(path).path)
    }

    private func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path)
    }

    private func folder(_ id: UUID) -> String { BlobKey.jobFolder(id) }

    func testTheLeaderFoldsTheJobCountsEveryTick() async throws {
        let a = maintenance(), b = maintenance()
        let ids = try await queue.enqueue((0..<5).map { _ in NewJob(kind: "k") }).map(\.id)
        try await XCTAssertEqualAsync(try await queue.cancel(id: ids[0]), .cancelled)
        let deltas = try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self)
        XCTAssertEqual(deltas, 3, "the enqueue's one group, the cancel's two")
        let first = await a.tick()
        XCTAssertTrue(first.led)
        XCTAssertEqual(first.folded, deltas)
        let standby = await b.tick()
        XCTAssertEqual(standby.folded, 0, "a standby folds nothing")
        try await XCTAssertEqualAsync(try await db.scalar("SELECT count(*)::int FROM job_count_deltas", as: Int.self), 0)
        try await XCTAssertEqualAsync(try await queue.countJobs(in: [.queued]), 4)
        try await XCTAssertEqualAsync(try await queue.countJobs(in: [.cancelled]), 1)
        await b.resign()
        await a.resign()
    }

    /// A bulk action whose runner died (no batch for a minute) is continued by the leader, from
    /// its cursor, to the end.
    func testTheLeaderResumesAnAbandonedBulkAction() async throws {
        let ids = try await queue.enqueue((0..<30).map { _ in NewJob(kind: "k") }).map(\.id)
        let action = try await queue.bulkActions.begin(.cancel, JobCriteria(), actor: "ops", batchSize: 10)
        _ = try await queue.bulkActions.step(action.id)   // then its runner "dies"
        let leader = maintenance()
        let fresh = await leader.tick()
        XCTAssertEqual(fresh.bulkResumed, [], "a runner that moved within the minute is left alone")
        try await db.execute("UPDATE bulk_actions SET updated_at = now() - interval '2 minutes' WHERE id = \(action.id)")
        let other = maintenance()   // a new leader process: its housekeeping is due at once
        let bulkActions = Task { await other.runBulkActions() }
        defer { bulkActions.cancel() }
        await leader.resign()
        let report = await other.tick()
        XCTAssertEqual(report.bulkResumed, [action.id])
        try await db.eventually("the action to end") { try await self.queue.bulkActions.find(id: action.id).state == .done }
        try await XCTAssertEqualAsync(try await queue.bulkActions.find(id: action.id).acted, 30)
        try await XCTAssertEqualAsync(try await queue.jobs(ids: ids).filter { $0.state == .cancelled }.count, 30)
        await other.resign()
    }

    func testOnlyTheLockHolderLeads() async throws {
        let a = maintenance(), b = maintenance()
        // A dead worker's job: whoever leads rescues it, and only the leader does.
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        _ = try await queue.claim(worker: "dead", queues: ["default"], kinds: ["k"], limit: 1, lease: .seconds(30))
        try await db.execute("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(id)")

        let first = await a.tick()
        XCTAssertTrue(first.led)
        XCTAssertEqual(first.rescued, 1)
        let standby = await b.tick()
        XCTAssertEqual(standby, Maintenance.Report(), "the other process stands by and does nothing")
        try await XCTAssertTrueAsync(await a.tick().led, "the leader keeps the lead")
        try await XCTAssertEqualAsync(await b.tick().led, false)

        // The leader's connection dies (a killed process): the lock goes with it, the standby
        // takes over. (pg_terminate_backend waits until that backend is gone.)
        try await db.execute("""
            SELECT pg_terminate_backend(pid, 10000) FROM pg_locks
             WHERE locktype = 'advisory' AND granted AND classid = \(Int64(UInt32(bitPattern: Schema.lockNamespace)))::oid
               AND objid = \(Int64(UInt32(bitPattern: LeaderLock.maintenanceKey)))::oid AND objsubid = 2
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
        try await XCTAssertTrueAsync(await b.tick().led, "the standby leads once the lock is free")
        try await XCTAssertEqualAsync(await a.tick().led, false, "the old leader noticed it lost the lock")
        await b.resign()
        try await XCTAssertTrueAsync(await a.tick().led, "a resigned leader hands over at once")
        await a.resign()
    }

    /// The application's own chores run with the leader's housekeeping, and only the leader's:
    /// the runtime calls them without knowing what they touch.
    func testOnlyTheLeaderRunsTheApplicationsChores() async throws {
        let runs = Mutex(0)
        let chore = MaintenanceChore(name: "count") { _ in runs.withLock { $0 += 1; return $0 } }
        let leader = maintenance { $0.chores = [chore] }, standby = maintenance { $0.chores = [chore] }
        let report = await leader.tick()
        XCTAssertEqual(report.chores, ["count": 1])
        let idle = await standby.tick()
        XCTAssertEqual(idle.chores, [:], "a standby runs no chore")
        XCTAssertEqual(runs.withLock { $0 }, 1)
        await leader.resign()
        await standby.resign()
    }

    func testSweepRemovesOnlyOldUnreferencedFoldersAndLeftovers() async throws {
        let referenced = try await queue.enqueue(NewJob(kind: "k")).id
        let orphan = UUID(), young = UUID()
        for id in [referenced, orphan, young] {
            _ = try await blobs.put(Data("jpeg".utf8), at: BlobKey.jobInput(id, fileExtension: "jpg"))
        }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("jobs/not-a-job-id"), withIntermediateDirectories: true)
        let leftover = ".tmp/" + UUID().uuidString, fresh = ".tmp/" + UUID().uuidString
        for path in [leftover, fresh] { try Data("half".utf8).write(to: directory.appendingPathComponent(path)) }
        for path in [folder(referenced), folder(orphan), "jobs/not-a-job-id", leftover] { try age(path, by: 2 * 3600) }
        try age(folder(young), by: 30 * 60)

        let report = try await maintenance().sweepOrphans()   // grace: 1 h (the default)
        XCTAssertEqual(report.orphanFolders, [folder(orphan)])
        XCTAssertEqual(report.abandonedWrites, 1)
        XCTAssertFalse(exists(folder(orphan)), "no job references it and it is older than the grace period")
        XCTAssertTrue(exists(folder(referenced) + "/input.jpg"), "its job exists")
        XCTAssertTrue(exists(folder(young) + "/input.jpg"), "younger than the grace period: its job may be being inserted")
        XCTAssertTrue(exists("jobs/not-a-job-id"), "not named by a job id: not the sweep's to judge")
        XCTAssertFalse(exists(leftover), "an interrupted write older than the grace period")
        XCTAssertTrue(exists(fresh), "a write that may still be going on")

        let again = try await maintenance().sweepOrphans()
        XCTAssertEqual(again, OrphanSweeper.Report(), "nothing left to do")
    }

    func testFilesOfAPurgedJobWhoseDeleteFailedAreRemovedLater() async throws {
        let id = try await queue.enqueue(NewJob(kind: "k")).id
        let claimed = try await queue.claim(worker: "w", queues: ["default"], kinds: ["k"], limit: 1, lease: .seconds(30))
        _ = try await blobs.put(Data("result".utf8), at: BlobKey.jobResult(id, fileExtension: "jpg"))
        _ = try await queue.complete(claimed.map { Completion(job: $0, outcome: .succeeded(result: nil)) }, worker: "w")
        try await db.execute("UPDATE jobs SET finished_at = now() - interval '8 days' WHERE id = \(id)")
        try age(folder(id), by: 8 * 86400)

        let flaky = FailingDeletes(blobs)
        let leader = maintenance(blobs: flaky)
        let report = await leader.tick()   // purges the job (retention 7 d); its folder cannot be deleted
        XCTAssertTrue(report.led)
        XCTAssertEqual(report.purged, 1)
        XCTAssertEqual(report.sweep?.orphanFolders, [], "the sweep's own delete fails too")
        try await XCTAssertEqualAsync(try await queue.countJobs(in: []), 0)
        XCTAssertTrue(exists(folder(id) + "/result.jpg"), "the delete failed")

        flaky.failing = false
        let later = try await leader.sweepOrphans()
        XCTAssertEqual(later.orphanFolders, [folder(id)], "the folder belongs to no job: the sweep removes it")
        XCTAssertFalse(exists(folder(id)))
        await leader.resign()
    }
}

/// A real local store whose deletes fail while `failing` is set (a disk that refuses).
private final class FailingDeletes: BlobStore, @unchecked Sendable {
    let store: LocalBlobStore
    var failing = true
    init(_ store: LocalBlobStore) { self.store = store }

    func put(_ data: Data, at key: BlobKey) async throws(StorageError) -> BlobInfo { try await store.put(data, at: key) }
    func info(_ key: BlobKey) async throws(StorageError) -> BlobInfo? { try await store.info(key) }
    func read(_ key: BlobKey, range: Range<Int>?) async throws(StorageError) -> Data { try await store.read(key, range: range) }
    func delete(_ key: BlobKey) async throws(StorageError) {
        if failing { throw .unavailable("cannot delete blob \(key): input/output error") }
        try await store.delete(key)
    }
    func deleteAll(under prefix: String) async throws(StorageError) {
        if failing { throw .unavailable("cannot delete \(prefix): input/output error") }
        try await store.deleteAll(under: prefix)
    }
    func check() async throws(StorageError) { try await store.check() }
    func folders(under prefix: String, changedBefore cutoff: Date) async throws(StorageError) -> [String] {
        try await store.folders(under: prefix, changedBefore: cutoff)
    }
    func removeAbandonedWrites(olderThan cutoff: Date) async throws(StorageError) -> Int {
        try await store.removeAbandonedWrites(olderThan: cutoff)
    }
}
