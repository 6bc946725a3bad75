import Foundation
import PostgresNIO

/// The result of an enqueue: the job's id, and whether this call created it
/// (`false` when an earlier job with the same idempotency key, or a job it duplicates, was
/// returned instead).
public struct EnqueuedJob: Sendable, Equatable {
    public var id: UUID
    public var inserted: Bool
    /// The job returned is one this enqueue's ``NewJob/unique`` key matched.
    public var duplicate: Bool

    public init(id: UUID, inserted: Bool, duplicate: Bool = false) {
        self.id = id
        self.inserted = inserted
        self.duplicate = duplicate
    }
}

extension JobQueue {
    /// Enqueues one job. Workers listening on its queue are woken by the insert's NOTIFY.
    /// Enqueues made at the same moment in this process share one insert (``EnqueueCoalescer``).
    @discardableResult
    public func enqueue(_ job: NewJob) async throws -> EnqueuedJob {
        try job.validate()
        try Self.requireJSONObject(job.payload, what: "payload")
        if let unique = job.unique { return try await enqueueUnique(job, unique: unique) }
        return try await coalescer.enqueue(job, id: job.id ?? JobID.make()) { [self] ids, jobs in
            try await insert(ids: ids, jobs: jobs)
        }
    }

    /// Enqueues many jobs in one statement (one round trip, one NOTIFY per queue).
    /// Results are in the order of `jobs`. Jobs with a ``NewJob/unique`` key go one by one.
    @discardableResult
    public func enqueue(_ jobs: [NewJob]) async throws -> [EnqueuedJob] {
        guard !jobs.isEmpty else { return [] }
        for job in jobs {
            try job.validate()
            try Self.requireJSONObject(job.payload, what: "payload")
        }
        guard jobs.contains(where: { $0.unique != nil }) else {
            return try await insert(ids: jobs.map { $0.id ?? JobID.make() }, jobs: jobs)
        }
        var results: [EnqueuedJob] = []
        for job in jobs { results.append(try await enqueue(job)) }
        return results
    }

    /// The insert of checked jobs with their ids, and the answer for each: created, or the job
    /// that already holds its idempotency key.
    ///
    /// One round trip that commits before it answers (`atelier_enqueue_jobs`: the
    /// insert, then COMMIT, inside one CALL), so a
    /// caller told "created" may rely on it
    /// (docs/reliability.md, "A commit the caller can trust"). A lone INSERT would commit at the
    /// `Sync` after its `CommandComplete`, which PostgresNIO does not wait for; a commit failing
    /// between the two — the server stopping, as `pg_ctl stop -m fast` does — would go unseen.
    private func insert(ids: [UUID], jobs: [NewJob]) async throws -> [EnqueuedJob] {
        let statement = EnqueueJobsStatement(jobs: JobInsertArguments(ids: ids, jobs: jobs, fairShare: fairShare))
        var inserted = Set<UUID>()
        for try await landed in try await client.execute(statement, logger: logger) { inserted.formUnion(landed) }
        var results = zip(ids, jobs).map { EnqueuedJob(id: $0.0, inserted: inserted.contains($0.0)) }
        // Jobs that hit an idempotency key: answer with the job that already holds the key.
        let conflicts = results.indices.filter { !results[$0].inserted }
        if !conflicts.isEmpty {
            let owners = conflicts.map { jobs[$0].owner }
            let keys = conflicts.map { jobs[$0].idempotencyKey ?? "" }
            var existing: [String: UUID] = [:]
            let rows = try await client.query("""
                SELECT j.owner, j.idempotency_key, j.id FROM jobs j
                  JOIN unnest(\(owners)::text[], \(keys)::text[]) AS k(owner, key)
                    ON j.owner = k.owner AND j.idempotency_key = k.key
                """, logger: logger)
            for try await (owner, key, id) in rows.decode((String, String, UUID).self) {
                existing[owner + "\u{0}" + key] = id
            }
            for index in conflicts {
                let job = jobs[index]
                guard let id = existing[job.owner + "\u{0}" + (job.idempotencyKey ?? "")] else {
                    throw QueueError.conflict("job with idempotency key '\(job.idempotencyKey ?? "")' vanished while enqueueing; retry")
                }
                results[index] = EnqueuedJob(id: id, inserted: false)
            }
        }
        return results
    }

    /// Throws unless `text` is a JSON object. Plain objects are recognised by a scan
    /// (``PlainJSONObject``); anything else is judged by `JSONSerialization`.
    static func requireJSONObject(_ text: String, what: String) throws(QueueError) {
        if PlainJSONObject.accepts(text) { return }
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
              object is [String: Any]
        else {
            throw .invalidArgument("\(what) must be a JSON object, got '\(text.prefix(80))'")
        }
    }
}

/// The batch insert's arguments, in `atelier_insert_jobs`'s order: one element
/// per job in each array. A job whose (owner, idempotency key) exists is skipped and its id left
/// out of the result. A job enqueued without a run_at gets its fair-share tag in the insert
/// (`atelier_fair_tags`: after its owner's last queued job, or at the turn being
/// served); one given a run_at is tagged by the claim when that time comes.
struct JobInsertArguments: Sendable {
    var ids: [UUID]
    var jobs: [NewJob]
    var fairShare: Bool

    /// `$1` … `$16`, cast as the function's parameters are.
    static let placeholders = """
        $1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::int[], $8::float8[], $9::text[], \
        $10::text[], $11::text[], $12::text[], $13::boolean, $14::int[], $15::text[], $16::int[]
        """

    func bindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 16)
        bindings.append(ids)
        bindings.append(jobs.map(\.kind))
        bindings.append(jobs.map(\.queue))
        bindings.append(jobs.map(\.priority))
        bindings.append(jobs.map(\.owner))
        bindings.append(jobs.map(\.payload))
        bindings.append(jobs.map(\.maxAttempts))
        bindings.append(jobs.map { $0.runAt?.timeIntervalSince1970 ?? -1 })
        bindings.append(jobs.map { $0.idempotencyKey ?? "" })
        bindings.append(jobs.map { $0.requestID ?? "" })
        bindings.append(jobs.map { $0.parentID?.uuidString ?? "" })
        bindings.append(jobs.map { FollowUp.columnText($0.followUps) })
        bindings.append(fairShare)
        // Validated to 1 ms … 7 days, so it fits; 0 stands for none.
        bindings.append(jobs.map { $0.timeout.map { Int(max(1, $0.milliseconds)) } ?? 0 })
        bindings.append(jobs.map { $0.unique?.key ?? "" })
        // The priority of each job due now; -1000 (no priority is) for one given a run_at.
        bindings.append(jobs.map { $0.runAt == nil ? $0.priority : -1000 })
        return bindings
    }
}

/// The enqueue (the API's hottest statement), prepared once per connection: the insert and its
/// commit in one CALL, answering with the ids inserted. Must not run inside a transaction block
/// (a procedure's COMMIT is refused there); ``InsertJobsStatement`` is the insert for one.
struct EnqueueJobsStatement: PostgresPreparedStatement {
    static let name = "atelier_enqueue_jobs_v1"
    static let sql = "CALL atelier_enqueue_jobs(\(JobInsertArguments.placeholders), NULL)"

    typealias Row = [UUID]

    var jobs: JobInsertArguments

    func makeBindings() throws -> PostgresBindings { jobs.bindings() }

    func decodeRow(_ row: PostgresRow) throws -> [UUID] {
        try row.decode([UUID].self)
    }
}

/// The insert alone, inside a caller's transaction (the unique enqueue's): the ids inserted.
struct InsertJobsStatement: PostgresPreparedStatement {
    static let name = "atelier_insert_jobs_v7"
    static let sql = "SELECT atelier_insert_jobs(\(JobInsertArguments.placeholders))"

    typealias Row = UUID

    var jobs: JobInsertArguments

    func makeBindings() throws -> PostgresBindings { jobs.bindings() }

    func decodeRow(_ row: PostgresRow) throws -> UUID {
        try row.decode(UUID.self)
    }
}
