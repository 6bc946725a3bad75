import Foundation
import PostgresNIO

extension JobQueue {
    /// Claims up to `limit` claimable jobs for `worker`, highest priority first, then oldest.
    ///
    /// The claim query: pick rows from the partial index of queued jobs in claim order,
    /// skipping rows another worker is claiming at this instant (`FOR UPDATE SKIP LOCKED`),
    /// then mark them running under a lease in the same statement, and append a `running`
    /// event for each. Paused queues are left alone. Cost is O(limit), not O(queued jobs).
    ///
    /// The paused-queue filter is written as `queue = ANY(unpaused)`, not `queue <> ALL(paused)`:
    /// with one distinct queue name the planner rates `<>` as matching ~no rows and picks a
    /// sequential scan plus sort over the whole backlog (10 ms at 10k jobs) instead of the
    /// index walk (0.2 ms at any depth). `atelier bench queue claim-latency` watches this.
    public func claim(
        worker: String, queues: [String], kinds: [String], limit: Int, lease: Duration
    ) async throws -> [ClaimedJob] {
        guard limit > 0, !queues.isEmpty, !kinds.isEmpty else { return [] }
        let query: PostgresQuery = """
            WITH next AS MATERIALIZED (
                SELECT id FROM jobs
                 WHERE state = 'queued' AND run_at <= now() AND kind = ANY(\(kinds)::text[])
                   AND queue = ANY (ARRAY(SELECT q FROM unnest(\(queues)::text[]) q
                                           WHERE q NOT IN (SELECT name FROM queues WHERE paused)))
                 ORDER BY priority DESC, run_at, id
                 LIMIT \(limit)
                   FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE jobs j
                   SET state = 'running', attempt = j.attempt + 1, lease_owner = \(worker),
                       lease_expires_at = now() + \(lease.milliseconds) * interval '1 millisecond',
                       started_at = coalesce(j.started_at, now()), updated_at = now()
                  FROM next WHERE j.id = next.id
                RETURNING j.id, j.kind, j.queue, j.priority, j.owner, j.payload, j.attempt, j.max_attempts,
                          j.request_id, j.created_at
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id, 'running', jsonb_build_object('attempt', attempt, 'worker', \(worker)::text)
                  FROM claimed
            )
            SELECT id, kind, queue, priority::int, owner, payload::text, attempt, max_attempts, request_id, created_at
              FROM claimed
             ORDER BY priority DESC, id
            """
        var jobs: [ClaimedJob] = []
        let rows = try await client.query(query, logger: logger)
        for try await (id, kind, queue, priority, owner, payload, attempt, maxAttempts, requestID, createdAt)
            in rows.decode((UUID, String, String, Int, String, String, Int, Int, String?, Date).self) {
            jobs.append(ClaimedJob(
                id: id, kind: kind, queue: queue, priority: priority, owner: owner, payload: payload,
                attempt: attempt, maxAttempts: maxAttempts, requestID: requestID, createdAt: createdAt,
                leaseOwner: worker))
        }
        return jobs
    }
}
