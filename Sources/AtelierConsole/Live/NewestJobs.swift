import AtelierQueue
import Foundation

/// The console feed's look at the newest jobs, once per batch while a page is open: the ids of
/// the newest `limit` jobs — the job list's first page as a reload would show it, the primary
/// key read backwards — and which of them were not among the newest at the previous look.
///
/// Not "ids above the newest one seen": a job's id (UUIDv7) is made by its enqueuer before the
/// insert commits, so ids do not arrive in commit order. An insert that commits late — behind
/// another statement in flight, from another process, with a clock a little behind — lands
/// below jobs already seen, where such a watermark never looks again. Comparing with the
/// previous look finds it wherever it lands among the newest; below them it is not on the first
/// page either, and a reload would not show it there. The first look only takes note.
struct NewestJobs: Sendable {
    let queue: JobQueue
    let limit: Int
    /// The newest jobs at the last look, newest first.
    private(set) var ids: [UUID] = []
    private var looked = false

    init(queue: JobQueue, limit: Int) {
        self.queue = queue
        self.limit = limit
    }

    /// The jobs among the newest `limit` that were not there at the previous look, newest first.
    mutating func look() async throws -> [UUID] {
        let newest = try await queue.newestJobIDs(limit: limit)
        let previous = Set(ids)
        let wasFirst = !looked
        (ids, looked) = (newest, true)
        return wasFirst ? [] : newest.filter { !previous.contains($0) }
    }
}
