import Foundation
import PostgresNIO

extension JobQueue {
    /// How long a job marked to run alone may wait before busy workers stop claiming to make
    /// room for it (`ATELIER_ISOLATION_WAIT`).
    public static let defaultIsolationWait = Duration.seconds(5)

    /// Claims up to `limit` claimable jobs for `worker`, highest priority first, then owners in
    /// turn (fair share; oldest first when ``fairShare`` is off).
    ///
    /// The claim query is the SQL function `atelier_claim`, defined in
    /// `Sources/AtelierQueue/SQL/atelier_claim.sql`: tag the
    /// jobs whose run_at has come for fair share, pick rows from the partial
    /// index of ready jobs in claim order, skipping rows another worker is claiming at this
    /// instant (`FOR UPDATE SKIP LOCKED`), mark them running under a lease in the same
    /// statement, and append a `running` event for each.
    /// Paused queues are left alone. It lives in the database so its planner settings can pin
    /// the index walk: cost is O(limit), not O(queued jobs), even when statistics are stale
    /// (`ClaimPlanTests`).
    /// Where the claim sits in a job's life (wake-up, batch refill, leases): docs/architecture.md §2.2.
    ///
    /// A job marked `run_alone` is claimed only when `worker` is running nothing — as the
    /// database sees it: its claims whose completion has not landed — and then alone; a worker
    /// holding such a job gets nothing; a busy worker gets nothing either while a marked job it
    /// could run has waited longer than `isolationWait`, so it drains and takes that job next.
    ///
    /// Limits per kind (``KindLimits``): a kind at its concurrency, out of rate tokens, or
    /// an owner at its per-owner concurrency gets no more jobs from this claim; the jobs held back
    /// stay queued and spend no attempt. Each job comes with its kind's timeout, if one is set.
    package func claim(
        worker: String, queues: [String], kinds: [String], limit: Int, lease: Duration,
        isolationWait: Duration = JobQueue.defaultIsolationWait
    ) async throws -> [ClaimedJob] {
        try await claim(ClaimRequest(worker: worker, queues: queues, kinds: kinds, limit: limit, lease: lease,
                                     isolationWait: isolationWait))
    }

    /// Claims what `request` asks for; see ``claim(worker:queues:kinds:limit:lease:isolationWait:)``.
    package func claim(_ request: ClaimRequest) async throws -> [ClaimedJob] {
        guard !request.isEmpty else { return [] }
        let statement = ClaimStatement(request: request, fairShare: fairShare)
        var jobs: [ClaimedJob] = []
        for try await row in try await client.execute(statement, logger: logger) {
            jobs.append(row)
        }
        return jobs
    }
}

/// `atelier_claim(…)`, prepared once per connection (every idle poll and every refill sends it).
private struct ClaimStatement: PostgresPreparedStatement {
    static let name = "atelier_claim_v7"
    static let sql = "SELECT * FROM atelier_claim($1, $2::text[], $3::text[], $4::integer, $5::bigint, $6::bigint, $7::boolean)"

    typealias Row = ClaimedJob

    var request: ClaimRequest
    var fairShare: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        request.bind(to: &bindings, fairShare: fairShare)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> ClaimedJob {
        try ClaimedJob(claimRow: row.makeRandomAccess(), from: 0, worker: request.worker)
    }
}

extension ClaimRequest {
    /// `atelier_claim`'s seven parameters: worker, queues, kinds, limit, lease, isolation wait, fair.
    func bind(to bindings: inout PostgresBindings, fairShare: Bool) {
        bindings.append(worker)
        bindings.append(queues)
        bindings.append(kinds)
        bindings.append(limit)
        bindings.append(lease.milliseconds)
        bindings.append(isolationWait.milliseconds)
        bindings.append(fairShare)
    }
}

extension ClaimedJob {
    /// A row of `atelier_claim`'s table (its 16 columns from `first` on), leased to `worker`.
    init(claimRow row: PostgresRandomAccessRow, from first: Int, worker: String) throws {
        func column<Value: PostgresDecodable>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
            try row[first + index].decode(Value.self)
        }
        self.init(
            id: try column(0), kind: try column(1), queue: try column(2), priority: try column(3),
            owner: try column(4), payload: try column(5), attempt: try column(6), maxAttempts: try column(7),
            requestID: try column(8), createdAt: try column(9), leaseOwner: worker, crashes: try column(10),
            snoozes: try column(11), snoozeStreak: try column(12), runAlone: try column(13),
            timeout: try column(14, as: Int?.self).map { .milliseconds($0) },
            kindTimeout: try column(15, as: Int?.self).map { .milliseconds($0) })
    }
}
