import AtelierQueue
import Foundation
import Logging

/// Enqueues the jobs of cron schedules whose tick has come (`atelier schedules`), every
/// maintenance tick. Each tick is enqueued exactly once across leaders and their crashes: the
/// queue's tick statement advances the schedule and inserts the job together, and only if that
/// tick is newer than the schedule's last (docs/architecture.md §2.7a). After downtime only the
/// newest missed tick runs.
struct ScheduleTicker: Sendable {
    let queue: JobQueue
    let logger: Logger

    /// The jobs enqueued. `now` nil: the database's clock (tests pass the time they choose). A
    /// schedule whose statement fails is logged and left for the next round; the others go on.
    func run(now: Date? = nil) async throws -> Int {
        var enqueued = 0
        for tick in try await queue.schedules.dueTicks(now: now) {
            do {
                if let id = try await queue.schedules.enqueueTick(tick) {
                    enqueued += 1
                    logger.info("schedule enqueued its tick", metadata: [
                        "schedule": "\(tick.name)", "tick": "\(tick.tick)", "job_id": "\(id.uuidString.lowercased())"])
                }
            } catch {
                logger.warning("a schedule's tick failed; it is tried again next round", metadata: [
                    "schedule": "\(tick.name)", "error": "\(DatabaseErrorText.describe(error))"])
            }
        }
        return enqueued
    }
}
