import Foundation
import PostgresNIO

extension JobQueue {
    /// Records the outcomes of many attempts in one statement and returns the ids that landed.
    ///
    /// Fencing: an outcome lands only if the job is still `running` under `worker`'s lease for
    /// that same attempt. A worker whose lease was rescued (it looked dead, or its lease expired)
    /// and whose job was claimed again cannot overwrite anything: its completion is refused.
    package func complete(_ completions: [Completion], worker: String) async throws -> Set<UUID> {
        guard !completions.isEmpty else { return [] }
        var results: [String] = [], errors: [String] = [], delays: [Double] = []
        for completion in completions {
            switch completion.outcome {
            case .succeeded(let result):
                if let result { try Self.requireJSONObject(result, what: "job result") }
                results.append(result ?? ""); errors.append(""); delays.append(0)
            case .retry(let error, let delay), .snoozed(let error, let delay):
                results.append(""); errors.append(error); delays.append(max(0, delay.seconds))
            case .failed(let error), .cancelled(let error):
                results.append(""); errors.append(error); delays.append(0)
            case .released:
                results.append(""); errors.append(""); delays.append(0)
            }
        }
        let statement = CompleteStatement(
            ids: completions.map(\.jobID), attempts: completions.map(\.attempt),
            outcomes: completions.map(\.outcome.code), results: results, errors: errors, delays: delays, worker: worker)
        var landed = Set<UUID>()
        for try await id in try await client.execute(statement, logger: logger) {
            landed.insert(id)
        }
        return landed
    }
}

/// The completion statement, prepared once per connection: it is the hottest statement a busy
/// worker sends, and parsing and planning it each time cost more than running it.
private struct CompleteStatement: PostgresPreparedStatement {
    static let name = "atelier_complete_v5"
    static let sql = """

            WITH input AS (
                SELECT * FROM unnest($1::uuid[], $2::int[],
                                     $3::text[], $4::text[],
                                     $5::text[], $6::float8[])
                    AS c(id, attempt, outcome, result, error, delay_s)
            ), updated AS (
                UPDATE jobs j SET
                    state = CASE WHEN c.outcome IN ('retry', 'released', 'snoozed') THEN 'queued' ELSE c.outcome END,
                    attempt = CASE WHEN c.outcome = 'released' THEN j.attempt - 1 ELSE j.attempt END,
                    -- The handler finished this attempt: the job did not kill its worker (0008).
                    crash_streak = CASE WHEN c.outcome = 'released' THEN j.crash_streak ELSE 0 END,
                    -- ... so it need not run alone any more (0013).
                    run_alone = CASE WHEN c.outcome = 'released' THEN j.run_alone ELSE false END,
                    -- A snoozed attempt does not count against max_attempts (0009).
                    snoozes = CASE WHEN c.outcome = 'snoozed' THEN j.snoozes + 1 ELSE j.snoozes END,
                    snooze_streak = CASE c.outcome WHEN 'snoozed' THEN j.snooze_streak + 1
                                                   WHEN 'released' THEN j.snooze_streak ELSE 0 END,
                    result = CASE WHEN c.outcome = 'succeeded' THEN NULLIF(c.result, '')::jsonb ELSE j.result END,
                    error = CASE c.outcome WHEN 'succeeded' THEN NULL WHEN 'released' THEN j.error ELSE c.error END,
                    errors = CASE WHEN c.outcome IN ('retry', 'failed')
                        THEN j.errors || jsonb_build_array(jsonb_build_object(
                                 'attempt', j.attempt, 'at', now(), 'error', c.error))
                        ELSE j.errors END,
                    run_at = CASE c.outcome WHEN 'retry' THEN now() + make_interval(secs => c.delay_s)
                                            WHEN 'snoozed' THEN now() + make_interval(secs => c.delay_s)
                                            WHEN 'released' THEN now() ELSE j.run_at END,
                    progress = CASE WHEN c.outcome = 'succeeded' THEN 100 ELSE j.progress END,
                    finished_at = CASE WHEN c.outcome IN ('succeeded', 'failed', 'cancelled') THEN now() END,
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                  FROM input c
                 WHERE j.id = c.id AND j.attempt = c.attempt AND j.state = 'running' AND j.lease_owner = $7
                RETURNING j.id, c.outcome, j.attempt, j.run_at, c.error, j.owner, j.request_id, j.follow_up, j.snoozes
            ), followed AS (
                -- A success enqueues the job's follow-ups (migration 0007), exactly once.
                INSERT INTO jobs (id, kind, queue, priority, owner, payload, max_attempts, request_id, parent_id, follow_up)
                SELECT atelier_uuid_v7(), f->>'kind', coalesce(f->>'queue', 'default'), coalesce((f->>'priority')::int, 0),
                       u.owner, coalesce(f->'payload', '{}'::jsonb), coalesce((f->>'max_attempts')::int, 5),
                       u.request_id, u.id, NULLIF(f->'follow_up', 'null'::jsonb)
                  FROM updated u, jsonb_array_elements(u.follow_up) AS f
                 WHERE u.outcome = 'succeeded' AND u.follow_up IS NOT NULL
                RETURNING parent_id, id
            ), events AS (
                INSERT INTO job_events (job_id, type, data)
                SELECT id,
                       CASE outcome WHEN 'retry' THEN 'retrying' WHEN 'released' THEN 'requeued'
                                    WHEN 'snoozed' THEN 'requeued' ELSE outcome END,
                       jsonb_strip_nulls(jsonb_build_object(
                           'attempt', attempt,
                           'error', NULLIF(error, ''),
                           'run_at', CASE WHEN outcome IN ('retry', 'snoozed') THEN run_at END,
                           'reason', CASE outcome WHEN 'released' THEN 'worker shutting down' WHEN 'snoozed' THEN 'snoozed' END,
                           'snoozes', CASE WHEN outcome = 'snoozed' THEN snoozes END,
                           'follow_ups', (SELECT jsonb_agg(f.id ORDER BY f.id) FROM followed f WHERE f.parent_id = updated.id)))
                  FROM updated
            )
            SELECT id FROM updated
        """

    typealias Row = UUID

    var ids: [UUID], attempts: [Int], outcomes: [String], results: [String], errors: [String], delays: [Double]
    var worker: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(ids)
        bindings.append(attempts)
        bindings.append(outcomes)
        bindings.append(results)
        bindings.append(errors)
        bindings.append(delays)
        bindings.append(worker)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> UUID {
        try row.decode(UUID.self)
    }
}
