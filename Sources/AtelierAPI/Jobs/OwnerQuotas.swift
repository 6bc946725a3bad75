import AtelierQueue
import Foundation
import PostgresNIO
import Synchronization

/// Per-owner limits checked before a job is accepted, each refused with a 429 that says which
/// limit and what it is: jobs waiting or running (`ATELIER_MAX_ACTIVE_JOBS_PER_OWNER`) and
/// bytes of uploaded images kept (`ATELIER_MAX_STORED_BYTES_PER_OWNER`, counted from the
/// inputs of the owner's jobs that have not been purged). 0 turns a limit off.
///
/// The owner's usage is read from the database at most once per `refresh` (1 s) per process
/// and counted up locally in between, so a burst of submissions costs one query, not one each.
/// It is a quota, not a lock: processes that accept at the same moment may overshoot a limit by
/// what they accept within one refresh.
final class OwnerQuotas: Sendable {
    let maxActiveJobs: Int
    let maxStoredBytes: Int
    private let refresh: Duration
    private let usage = Mutex<[String: Usage]>([:])

    private struct Usage {
        var active: Int64
        var stored: Int64
        var readAt: ContinuousClock.Instant
        /// A request is reading it afresh: the others count on the last reading meanwhile.
        var refreshing = false
    }

    init(maxActiveJobs: Int, maxStoredBytes: Int, refresh: Duration = .seconds(1)) {
        self.maxActiveJobs = maxActiveJobs
        self.maxStoredBytes = maxStoredBytes
        self.refresh = refresh
    }

    static var off: OwnerQuotas { OwnerQuotas(maxActiveJobs: 0, maxStoredBytes: 0) }

    var isOff: Bool { maxActiveJobs <= 0 && maxStoredBytes <= 0 }

    /// Throws the 429 when accepting one more job with `incomingBytes` for `owner` would pass a
    /// limit; otherwise counts it.
    func check(owner: String, incomingBytes: Int, queue: JobQueue) async throws {
        guard !isOff else { return }
        let now = ContinuousClock.now
        // Fresh, or being refreshed by another request: use it. Stale: this request refreshes it
        // (one query per owner per refresh, not one per request that finds it stale).
        let (known, mustRead): (Usage?, Bool) = usage.withLock { usage in
            guard var entry = usage[owner] else { return (nil, true) }
            if now - entry.readAt < refresh || entry.refreshing { return (entry, false) }
            entry.refreshing = true
            usage[owner] = entry
            return (entry, true)
        }
        var current = known
        if mustRead {
            do {
                current = try await read(owner, queue: queue, now: now)
            } catch {
                usage.withLock { $0[owner]?.refreshing = false }
                throw error
            }
        }
        guard let current else { return }
        if maxActiveJobs > 0, current.active >= maxActiveJobs {
            throw APIError(.tooManyRequests, "QuotaExceededError",
                           "you have \(current.active) jobs waiting or running, the limit is \(maxActiveJobs); wait for some to finish or cancel them",
                           details: ["quota": "active_jobs", "limit": String(maxActiveJobs)], headers: [.retryAfter: "10"])
        }
        if maxStoredBytes > 0, incomingBytes > 0, current.stored + Int64(incomingBytes) > maxStoredBytes {
            throw APIError(.tooManyRequests, "QuotaExceededError",
                           "your uploaded images take \(current.stored) bytes and this one \(incomingBytes) more; the limit is \(maxStoredBytes) bytes. "
                               + "Finished jobs' images are removed when they are purged",
                           details: ["quota": "stored_bytes", "limit": String(maxStoredBytes)], headers: [.retryAfter: "60"])
        }
        usage.withLock { usage in
            usage[owner]?.active += 1
            usage[owner]?.stored += Int64(incomingBytes)
        }
    }

    private func read(_ owner: String, queue: JobQueue, now: ContinuousClock.Instant) async throws -> Usage {
        let rows = try await queue.client.query("""
            SELECT (SELECT count(*) FROM jobs WHERE owner = \(owner) AND state IN ('queued', 'running')),
                   (SELECT coalesce(sum((payload->'input'->>'bytes')::bigint), 0)::bigint FROM jobs
                     WHERE owner = \(owner) AND payload ? 'input')
            """, logger: queue.logger)
        var read = Usage(active: 0, stored: 0, readAt: now)
        for try await (active, stored) in rows.decode((Int64, Int64).self) { (read.active, read.stored) = (active, stored) }
        usage.withLock { usage in
            if usage.count > 10_000 { usage = usage.filter { now - $0.value.readAt < refresh } }
            usage[owner] = read
        }
        return read
    }
}
