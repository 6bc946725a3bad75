import AtelierQueue
import Foundation

/// The console feed's look at the newest jobs, once per batch while a page is open: which jobs
/// were created since the previous look (a probe of the primary key for ids newer than the
/// newest seen — job ids are UUIDv7). The first look only takes note of the newest job.
struct NewestJobs: Sendable {
    let queue: JobQueue
    let limit: Int
    private var started = false
    private var newest: UUID?

    init(queue: JobQueue, limit: Int) {
        self.queue = queue
        self.limit = limit
    }

    /// The jobs created since the previous look, newest first (at most `limit`).
    mutating func look() async throws -> [UUID] {
        guard started else {
            newest = try await queue.browse(JobBrowseQuery.newest(limit: 1)).jobs.first?.id
            started = true
            return []
        }
        var query = JobBrowseQuery.newest(limit: limit)
        query.after = newest ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let created = try await queue.browse(query).jobs.map(\.id)
        if let first = created.first { newest = first }
        return created
    }
}
