import Foundation
import PostgresNIO

extension JobQueue {
    /// How long a job marked to run alone may wait before busy workers stop claiming to make
    /// room for it (`ATELIER_ISOLATION_WAIT`).
    public static let defaultIsolationWait = Duration.seconds(5)

    /// Claims up to `limit` claimable jobs for `worker`, highest priority first, then owners in
    /// turn (fair share; oldest first when ``fairShare`` is off).
    ///
    /// The claim query is the SQL function `atelier_claim`, read as the database has it in
    /// `Migrations/current/schema.sql` (made by migration 0002, redefined by 0008, 0009, 0013,
    /// 0017 and 0020; that file is their sum, kept true by ./ops/check-schema): tag the jobs whose run_at
    /// has come for fair share (0017), pick rows from the partial
    /// index of ready jobs in claim order, skipping rows another worker is claiming at this
    /// instant (`FOR UPDATE SKIP LOCKED`), mark them running under a lease in the same
    /// statement, and append a `running` event for each.
    /// Paused queues are left alone. It lives in the database so its planner settings can pin
    /// the index walk: cost is O(limit), not O(queued jobs), even when statistics are stale.
    /// Where the claim sits in a job's life (wake-up, batch refill, leases): docs/architecture.md §2.2.
    ///
    /// A job marked `run_alone` (0013) is claimed only when `worker` is running nothing — as the
    /// database sees it: its claims whose completion has not landed — and then alone; a worker
    /// holding such a job gets nothing; a busy worker gets nothing either while a marked job it
    /// could run has waited longer than `isolationWait`, so it drains and takes that job next.
    ///
    /// Limits per kind (0020, ``KindLimits``): a kind at its concurrency, out of rate tokens, or
    /// an owner at its per-owner concurrency gets no more jobs from this claim; the jobs held back
    /// stay queued and spend no attempt. Each job comes with its kind's timeout, if one is set.
    package func claim(
        worker: String, queues: [String], kinds: [String], limit: Int, lease: Duration,
        isolationWait: Duration = JobQueue.defaultIsolationWait
    ) async throws -> [ClaimedJob] {
        guard limit > 0, !queues.isEmpty, !kinds.isEmpty else { return [] }
        let statement = ClaimStatement(worker: worker, queues: queues, kinds: kinds, limit: limit,
                                       leaseMilliseconds: lease.milliseconds, isolationWaitMilliseconds: isolationWait.milliseconds,
                                       fairShare: fairShare)
        var jobs: [ClaimedJob] = []
        for try await (id, kind, queue, priority, owner, payload, attempt, maxAttempts, requestID, createdAt, crashes, snoozes, snoozeStreak, runAlone, timeoutMilliseconds, kindTimeoutMilliseconds)
            in try await client.execute(statement, logger: logger) {
            jobs.append(ClaimedJob(
                id: id, kind: kind, queue: queue, priority: priority, owner: owner, payload: payload,
                attempt: attempt, maxAttempts: maxAttempts, requestID: requestID, createdAt: createdAt,
                leaseOwner: worker, crashes: crashes, snoozes: snoozes, snoozeStreak: snoozeStreak, runAlone: runAlone,
                timeout: timeoutMilliseconds.map { .milliseconds($0) },
                kindTimeout: kindTimeoutMilliseconds.map { .milliseconds($0) }))
        }
        return jobs
    }
}

/// `atelier_claim(…)`, prepared once per connection (every idle poll and every refill sends it).
private struct ClaimStatement: PostgresPreparedStatement {
    static let name = "atelier_claim_v7"
    static let sql = "SELECT * FROM atelier_claim($1, $2::text[], $3::text[], $4::integer, $5::bigint, $6::bigint, $7::boolean)"

    typealias Row = (UUID, String, String, Int, String, String, Int, Int, String?, Date, Int, Int, Int, Bool, Int?, Int?)

    var worker: String, queues: [String], kinds: [String], limit: Int, leaseMilliseconds: Int64, isolationWaitMilliseconds: Int64
    var fairShare: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(worker)
        bindings.append(queues)
        bindings.append(kinds)
        bindings.append(limit)
        bindings.append(leaseMilliseconds)
        bindings.append(isolationWaitMilliseconds)
        bindings.append(fairShare)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
