-- The rescue: returns the jobs of dead workers to the queue, or fails those that look like poison
-- pills; returns how many it rescued. Run by the workers' maintenance leader every few seconds.
--
-- A running job is rescued when its lease expired (a hung or partitioned worker), or when its
-- worker's liveness lock is gone (atelier_live_workers: a killed process, found within one tick,
-- not a lease period). Liveness is ignored for p_restart_grace_ms after the database itself
-- started, while workers reconnect and take their locks again. The worker that lost the job can
-- no longer complete it: atelier_complete is fenced on the lease.
--
-- A lost attempt is a crash, not a handler failure: it raises `crashes` and does not count against
-- max_attempts, so killing workers never fails a healthy job. Who is to blame is found by
-- isolation: every rescued job is marked run_alone, so its next attempts run in a worker that
-- runs nothing else, and only a crash while the dead worker was running nothing but this job
-- raises crash_streak. A job whose streak reaches p_crash_limit (ATELIER_CRASH_LIMIT) is failed as
-- a poison pill, and its error and `failed` event (reason poison_pill) say so. Jobs lost together
-- with others keep their streak: one of them may have killed the process, or something else did.
-- A job requeued after its second crash alone in a row, or a later one, waits first (1 s,
-- doubling to 30 s, ±25 %): crashes come in bursts, and a streak spread over time is evidence
-- against the job rather than against the moment (docs/reliability.md).
CREATE OR REPLACE FUNCTION atelier_rescue_lost_jobs(p_restart_grace_ms bigint, p_crash_limit integer)
RETURNS integer
LANGUAGE sql VOLATILE
AS $$
    WITH lost AS (
        SELECT id, lease_expires_at < now() AS expired FROM jobs
         WHERE state = 'running'
           AND (lease_expires_at < now()
                OR (pg_postmaster_start_time() < now() - p_restart_grace_ms * interval '1 millisecond'
                    AND lease_owner NOT IN (SELECT id FROM atelier_live_workers)))
           FOR UPDATE SKIP LOCKED
    ), judged AS (
        -- The other jobs the dead worker was running (its claims not completed, rescued in this
        -- statement or not): none, and this job was alone when it died.
        SELECT j.id, o.others, o.others = 0 AND j.crash_streak + 1 >= p_crash_limit AS poison,
               'worker ' || coalesce(j.lease_owner, '?') || ' stopped during attempt ' || j.attempt
               || CASE WHEN lost.expired THEN ' (its lease expired' ELSE ' (its process is gone' END
               || CASE o.others WHEN 0 THEN ')' WHEN 1 THEN '; 1 other job was running in it)'
                       ELSE '; ' || o.others || ' other jobs were running in it)' END AS what
          FROM jobs j JOIN lost ON lost.id = j.id
         CROSS JOIN LATERAL (SELECT count(*)::int AS others FROM jobs r
                              WHERE r.state = 'running' AND r.lease_owner = j.lease_owner AND r.id <> j.id) o
    ), rescued AS (
        UPDATE jobs j SET
            state = CASE WHEN v.poison THEN 'failed' ELSE 'queued' END,
            crashes = j.crashes + 1,
            crash_streak = j.crash_streak + CASE WHEN v.others = 0 THEN 1 ELSE 0 END,
            run_alone = true,
            error = CASE WHEN v.poison
                THEN 'poison pill: the job stopped its worker ' || (j.crash_streak + 1) || ' times in a row while running alone '
                     || '(crash limit ' || p_crash_limit || '; last: ' || v.what || '); failed without another try'
                ELSE v.what END,
            errors = j.errors || jsonb_build_array(jsonb_build_object(
                'attempt', j.attempt, 'at', now(), 'error', v.what, 'crash', true)),
            -- A second crash alone in a row and the next ones wait before the next run: 1 s,
            -- doubling, ±25 %.
            run_at = now() + CASE WHEN v.others = 0 AND j.crash_streak >= 1
                THEN make_interval(secs => least(30, 2 ^ (j.crash_streak - 1)) * (0.75 + random() * 0.5))
                ELSE interval '0' END,
            finished_at = CASE WHEN v.poison THEN now() END,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          FROM judged v WHERE j.id = v.id
        RETURNING j.id, j.state, j.attempt, j.error, j.crashes, j.crash_streak, v.others
    ), events AS (
        INSERT INTO job_events (job_id, type, data)
        SELECT id, CASE WHEN state = 'failed' THEN 'failed' ELSE 'requeued' END,
               jsonb_build_object('attempt', attempt, 'error', error, 'crashes', crashes, 'crash_streak', crash_streak,
                                  'shared_with', others, 'reason', CASE WHEN state = 'failed' THEN 'poison_pill' ELSE 'worker_lost' END)
          FROM rescued
    )
    SELECT count(*)::int FROM rescued
$$;
