import Foundation
import PostgresNIO

extension JobQueue {
    /// Enqueues `job` unless a job of the same owner, kind and unique key is queued or running,
    /// or finished within `unique.period`: then that job is the answer (``EnqueuedJob/duplicate``).
    ///
    /// One transaction: an advisory lock on (owner, kind, key) serialises the enqueues that could
    /// duplicate each other, then — in a statement of its own, so it sees what the previous
    /// holder committed — the look for an existing job (`jobs_unique_idx`), then the insert. Two
    /// round trips more than a plain enqueue, and no coalescing with others: a unique job is a
    /// deliberate act, not the hot path. An idempotency key, when also given, is honoured as ever
    /// by the insert.
    func enqueueUnique(_ job: NewJob, unique: UniqueJob) async throws -> EnqueuedJob {
        let id = job.id ?? JobID.make()
        let seconds = unique.period.seconds
        return try await client.withTransaction(logger: logger) { connection -> EnqueuedJob in
            try await connection.query("""
                SELECT pg_advisory_xact_lock(hashtextextended(\(job.owner) || chr(31) || \(job.kind) || chr(31) || \(unique.key), 85))
                """, logger: logger)
            let found = try await connection.query("""
                SELECT id FROM jobs
                 WHERE owner = \(job.owner) AND kind = \(job.kind) AND unique_key = \(unique.key)
                   AND (state IN ('queued', 'running') OR finished_at >= now() - make_interval(secs => \(seconds)))
                 ORDER BY created_at DESC
                 LIMIT 1
                """, logger: logger)
            for try await existing in found.decode(UUID.self) {
                return EnqueuedJob(id: existing, inserted: false, duplicate: true)
            }
            var inserted = false
            let rows = try await connection.execute(
                InsertJobsStatement(jobs: JobInsertArguments(ids: [id], jobs: [job], fairShare: fairShare)), logger: logger)
            for try await _ in rows { inserted = true }
            if inserted { return EnqueuedJob(id: id, inserted: true) }
            // The idempotency key was taken: the job that holds it is the answer.
            let holder = try await connection.query("""
                SELECT id FROM jobs WHERE owner = \(job.owner) AND idempotency_key = \(job.idempotencyKey ?? "")
                """, logger: logger)
            for try await existing in holder.decode(UUID.self) { return EnqueuedJob(id: existing, inserted: false) }
            throw QueueError.conflict("job with idempotency key '\(job.idempotencyKey ?? "")' vanished while enqueueing; retry")
        }
    }
}
