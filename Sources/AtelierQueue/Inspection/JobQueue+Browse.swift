import Foundation
import PostgresNIO

/// What an operator looks for in the job list: the jobs a filter (``JobCriteria``) matches, or
/// one job by its id or by the request id a client quoted. Pages go from newest to oldest by job
/// id — ids are UUIDv7, which sort by the time the enqueuer made them, so the primary key is the
/// list's index and a cursor (not an offset) makes the hundredth page of a million jobs cost what
/// the first does, with no index added to the insert path.
public struct JobBrowseQuery: Sendable, Equatable {
    public var criteria = JobCriteria()
    /// A job id or a request id (exact). A request id is found by reading the table (no index:
    /// every enqueue would pay for one; operators search rarely).
    public var search: String?
    /// Jobs older than this one (the previous page's last).
    public var before: UUID?
    /// At most 10,000.
    public var limit = 50

    public init() {}
}

extension JobQueue {
    /// One page of jobs matching `query`, newest first, and whether older ones match too.
    public func browse(_ query: JobBrowseQuery) async throws -> (jobs: [Job], more: Bool) {
        let searchID = query.search.flatMap { UUID(uuidString: $0) }
        // PostgreSQL text cannot hold NUL: such a search matches no request id.
        let searchText = query.search.map { $0.contains("\u{0}") ? "" : $0 }
        let limit = max(1, min(query.limit, 10_000))
        var binds = PostgresBindings()
        let matches = query.criteria.condition(alias: "j", binds: &binds)
        binds.append(searchText)
        binds.append(searchID)
        binds.append(query.before)
        let rows = try await client.query(PostgresQuery(unsafeSQL: """
            SELECT \(Job.columns) FROM jobs j
             WHERE \(matches)
               AND ($10::text IS NULL OR id = $11::uuid OR request_id = $10::text)
               AND ($12::uuid IS NULL OR id < $12::uuid)
             ORDER BY id DESC
             LIMIT \(limit + 1)
            """, binds: binds), logger: logger)
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try Job(row: row)) }
        let more = jobs.count > limit
        return (Array(jobs.prefix(limit)), more)
    }

    /// How many jobs `criteria` matches now (a read of every matching row: for a filter, not
    /// for the whole table, whose counts ``countJobs(in:)`` reads).
    public func count(matching criteria: JobCriteria) async throws -> Int64 {
        var binds = PostgresBindings()
        let matches = criteria.condition(alias: "j", binds: &binds)
        return try await scalar(PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM jobs j WHERE " + matches, binds: binds),
                                as: Int64.self) ?? 0
    }

    /// The ids of the newest `limit` jobs, newest first: the primary key read backwards, what the
    /// first page of the console's job list holds (its live feed compares one look with the next).
    package func newestJobIDs(limit: Int) async throws -> [UUID] {
        let rows = try await client.query("SELECT id FROM jobs ORDER BY id DESC LIMIT \(max(1, limit))", logger: logger)
        var ids: [UUID] = []
        for try await id in rows.decode(UUID.self) { ids.append(id) }
        return ids
    }

    /// These jobs (those that still exist), newest first.
    public func jobs(ids: [UUID]) async throws -> [Job] {
        guard !ids.isEmpty else { return [] }
        let rows = try await client.query("""
            SELECT \(unescaped: Job.columns) FROM jobs WHERE id = ANY(\(ids)::uuid[]) ORDER BY id DESC
            """, logger: logger)
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try Job(row: row)) }
        return jobs
    }
}
