import Foundation
import PostgresNIO

/// Filters for listing jobs.
public struct JobFilter: Sendable {
    public var states: [JobState]
    public var kinds: [String]
    public var queue: String?
    public var owner: String?
    public var limit: Int
    public var offset: Int

    public init(states: [JobState] = [], kinds: [String] = [], queue: String? = nil, owner: String? = nil,
                limit: Int = 50, offset: Int = 0) {
        self.states = states
        self.kinds = kinds
        self.queue = queue
        self.owner = owner
        self.limit = limit
        self.offset = offset
    }
}

extension JobQueue {
    /// One job, or `QueueError.jobNotFound`. With `owner`, another owner's job is "not found" too.
    public func job(id: UUID, owner: String? = nil) async throws -> Job {
        let rows = try await client.query("""
            SELECT \(unescaped: Job.columns) FROM jobs
             WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)::text)
            """, logger: logger)
        for try await row in rows { return try Job(row: row) }
        throw QueueError.jobNotFound("no job with id \(id)")
    }

    /// Jobs enqueued by `id` (chained work), oldest first.
    public func children(of id: UUID) async throws -> [Job] {
        let rows = try await client.query("""
            SELECT \(unescaped: Job.columns) FROM jobs WHERE parent_id = \(id) ORDER BY created_at
            """, logger: logger)
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try Job(row: row)) }
        return jobs
    }

    /// A job's events in order, optionally only those after `afterEventID` (SSE resume).
    public func events(jobID: UUID, after afterEventID: Int64 = 0, limit: Int = 1_000) async throws -> [JobEvent] {
        let rows = try await client.query("""
            SELECT id, job_id, type, data::text, created_at FROM job_events
             WHERE job_id = \(jobID) AND id > \(afterEventID)
             ORDER BY id LIMIT \(limit)
            """, logger: logger)
        var events: [JobEvent] = []
        for try await (id, jobID, type, data, createdAt) in rows.decode((Int64, UUID, String, String, Date).self) {
            events.append(JobEvent(id: id, jobID: jobID, type: type, data: data, createdAt: createdAt))
        }
        return events
    }

    /// The job's newest event, or its newest of `type` (e.g. the last `progress`, whose data
    /// carries the step's detail), optionally no newer than event `atMost`.
    public func latestEvent(jobID: UUID, type: String? = nil, atMost: Int64? = nil) async throws -> JobEvent? {
        let rows = try await client.query("""
            SELECT id, job_id, type, data::text, created_at FROM job_events
             WHERE job_id = \(jobID) AND (\(type)::text IS NULL OR type = \(type)::text)
               AND (\(atMost)::bigint IS NULL OR id <= \(atMost)::bigint)
             ORDER BY id DESC LIMIT 1
            """, logger: logger)
        for try await (id, jobID, type, data, createdAt) in rows.decode((Int64, UUID, String, String, Date).self) {
            return JobEvent(id: id, jobID: jobID, type: type, data: data, createdAt: createdAt)
        }
        return nil
    }

    /// Jobs matching `filter`, newest first, and how many match in all.
    public func jobs(_ filter: JobFilter) async throws -> (jobs: [Job], total: Int) {
        let states = filter.states.map(\.rawValue)
        let rows = try await client.query("""
            SELECT \(unescaped: Job.columns), count(*) OVER ()::int FROM jobs
             WHERE (cardinality(\(states)::text[]) = 0 OR state = ANY(\(states)::text[]))
               AND (cardinality(\(filter.kinds)::text[]) = 0 OR kind = ANY(\(filter.kinds)::text[]))
               AND (\(filter.queue)::text IS NULL OR queue = \(filter.queue)::text)
               AND (\(filter.owner)::text IS NULL OR owner = \(filter.owner)::text)
             ORDER BY created_at DESC, id DESC
             LIMIT \(filter.limit) OFFSET \(filter.offset)
            """, logger: logger)
        var jobs: [Job] = []
        var total = 0
        for try await row in rows {
            jobs.append(try Job(row: row))
            let cells = row.makeRandomAccess()
            total = try cells[cells.count - 1].decode(Int.self)
        }
        if jobs.isEmpty && filter.offset > 0 {
            total = try await scalar("""
                SELECT count(*)::int FROM jobs
                 WHERE (cardinality(\(states)::text[]) = 0 OR state = ANY(\(states)::text[]))
                   AND (cardinality(\(filter.kinds)::text[]) = 0 OR kind = ANY(\(filter.kinds)::text[]))
                   AND (\(filter.queue)::text IS NULL OR queue = \(filter.queue)::text)
                   AND (\(filter.owner)::text IS NULL OR owner = \(filter.owner)::text)
                """, as: Int.self) ?? 0
        }
        return (jobs, total)
    }
}

extension JobQueue {
    /// How many jobs are in any of `states` (all jobs when empty), from the counts kept with the
    /// jobs (`count_jobs.sql`): exact, in constant time.
    public func countJobs(in states: [JobState]) async throws -> Int {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(states.map(\.rawValue))
        return try await scalar(PostgresQuery(unsafeSQL: EmbeddedAssets.countJobsSql, binds: bindings), as: Int.self) ?? 0
    }
}

extension JobQueue {
    /// The job an owner created with this idempotency key, if any.
    public func job(owner: String, idempotencyKey: String) async throws -> Job? {
        let rows = try await client.query("""
            SELECT \(unescaped: Job.columns) FROM jobs WHERE owner = \(owner) AND idempotency_key = \(idempotencyKey)
            """, logger: logger)
        for try await row in rows { return try Job(row: row) }
        return nil
    }
}
