import Foundation
import PostgresNIO

/// What an operator looks for in the job list: any of these kinds and states, one owner, created
/// within a time window, or one job by its id or by the request id a client quoted. Pages go from
/// newest to oldest by job id — ids are UUIDv7, which sort by the time the enqueuer made them, so
/// the primary key is the list's index and a cursor (not an offset) makes the hundredth page of a
/// million jobs cost what the first does, with no index added to the insert path.
public struct JobBrowseQuery: Sendable, Equatable {
    public var kinds: [String] = []
    public var states: [JobState] = []
    public var owner: String?
    public var createdAfter: Date?
    public var createdBefore: Date?
    /// A job id or a request id (exact). A request id is found by reading the table (no index:
    /// every enqueue would pay for one; operators search rarely).
    public var search: String?
    /// Jobs older than this one (the previous page's last).
    public var before: UUID?
    public var limit = 50

    public init() {}
}

extension JobQueue {
    /// One page of jobs matching `query`, newest first, and whether older ones match too.
    public func browse(_ query: JobBrowseQuery) async throws -> (jobs: [Job], more: Bool) {
        let states = query.states.map(\.rawValue)
        let searchID = query.search.flatMap { UUID(uuidString: $0) }
        // PostgreSQL text cannot hold NUL: such a search matches no request id.
        let searchText = query.search.map { $0.contains("\u{0}") ? "" : $0 }
        let limit = max(1, min(query.limit, 500))
        let rows = try await client.query("""
            SELECT \(unescaped: Job.columns) FROM jobs
             WHERE (cardinality(\(states)::text[]) = 0 OR state = ANY(\(states)::text[]))
               AND (cardinality(\(query.kinds)::text[]) = 0 OR kind = ANY(\(query.kinds)::text[]))
               AND (\(query.owner)::text IS NULL OR owner = \(query.owner)::text)
               AND (\(query.createdAfter)::timestamptz IS NULL OR created_at >= \(query.createdAfter)::timestamptz)
               AND (\(query.createdBefore)::timestamptz IS NULL OR created_at < \(query.createdBefore)::timestamptz)
               AND (\(searchText)::text IS NULL OR id = \(searchID)::uuid OR request_id = \(searchText)::text)
               AND (\(query.before)::uuid IS NULL OR id < \(query.before)::uuid)
             ORDER BY id DESC
             LIMIT \(limit + 1)
            """, logger: logger)
        var jobs: [Job] = []
        for try await row in rows { jobs.append(try Job(row: row)) }
        let more = jobs.count > limit
        return (Array(jobs.prefix(limit)), more)
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
