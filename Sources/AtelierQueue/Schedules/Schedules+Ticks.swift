import Foundation
import PostgresNIO

/// The maintenance leader's side of schedules: which ticks are due, and each tick's job enqueued
/// exactly once (`schedule_tick.sql`, built in). See docs/architecture.md §2.7a.
extension Schedules {
    /// The ticks due at `now` (nil: the database's clock, the same for every worker whatever its
    /// own clock says): one per schedule that is not paused and whose next tick has come. After
    /// downtime the tick is the newest one missed, so a schedule catches up at most one tick.
    package func dueTicks(now: Date? = nil) async throws -> [ScheduleTick] {
        let rows = try await client.query("""
            SELECT name, cron, next_tick, coalesce(\(now)::timestamptz, now()) FROM schedules
             WHERE NOT paused AND next_tick <= coalesce(\(now)::timestamptz, now())
             ORDER BY next_tick, name
            """, logger: logger)
        var ticks: [ScheduleTick] = []
        for try await (name, text, next, at) in rows.decode((String, String, Date, Date).self) {
            guard let cron = try? CronExpression(text) else {
                logger.warning("a schedule's cron expression no longer parses; it is skipped", metadata: ["schedule": "\(name)"])
                continue
            }
            guard let tick = cron.previous(atOrBefore: at), tick >= next, let after = cron.next(after: tick) else { continue }
            ticks.append(ScheduleTick(name: name, tick: tick, next: after))
        }
        return ticks
    }

    /// Enqueues the job of `tick` unless it was enqueued already (by this leader or another),
    /// the schedule is paused, or it is gone; returns the new job's id, or nil.
    @discardableResult
    package func enqueueTick(_ tick: ScheduleTick, jobID: UUID = JobID.make()) async throws -> UUID? {
        try await scalar(Self.tickQuery(tick, jobID: jobID), as: UUID.self)
    }

    /// The tick statement with its bindings, for a caller that runs it on a connection of its own
    /// (the tests: a transaction that never commits).
    package static func tickQuery(_ tick: ScheduleTick, jobID: UUID) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(tick.name)
        bindings.append(tick.tick)
        bindings.append(tick.next)
        bindings.append(jobID)
        return PostgresQuery(unsafeSQL: EmbeddedAssets.scheduleTickSql, binds: bindings)
    }
}
