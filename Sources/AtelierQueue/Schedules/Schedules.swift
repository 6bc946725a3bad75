import Foundation
import Logging
import PostgresNIO

/// Cron schedules (table `schedules`): added, listed, paused, resumed and removed by operators
/// (the CLI, the console, the admin API), and, for the maintenance leader, the ticks that are due
/// and each tick's job enqueued exactly once. Reached as `queue.schedules`; docs/architecture.md §2.7a.
public struct Schedules: QueueStatements {
    package let client: PostgresClient
    public let logger: Logger

    init(_ queue: JobQueue) {
        (client, logger) = (queue.client, queue.logger)
    }
}

extension JobQueue {
    /// Cron schedules and their ticks: ``Schedules``.
    public var schedules: Schedules { Schedules(self) }
}

/// Cron schedules, as operators manage them (`atelier schedules`, the console's Queues page).
/// Each change is written to the audit log in the same statement, as a queue's pause is
/// (`target`: `schedule:<name>`). The ticks themselves: `Schedules+Ticks.swift`.
extension Schedules {
    private static let scheduleColumns = """
        name, cron, kind, queue, payload::text, priority::int, max_attempts, owner, paused, next_tick, last_tick,
        last_job_id, created_at
        """

    /// Adds a schedule whose first tick is the first after `now`; a name already taken is a
    /// conflict (remove the old schedule first).
    @discardableResult
    package func add(_ new: NewSchedule, actor: String, now: Date = Date()) async throws -> Schedule {
        let cron = try new.validate()
        guard let first = cron.next(after: now) else { throw QueueError.invalidArgument("'\(new.cron)' never fires") }
        let rows = try await client.query("""
            WITH added AS (
                INSERT INTO schedules (name, cron, kind, queue, payload, priority, max_attempts, owner, next_tick)
                VALUES (\(new.name), \(cron.text), \(new.kind), \(new.queue), \(new.payload)::jsonb, \(new.priority),
                        \(new.maxAttempts), \(new.owner), \(first))
                ON CONFLICT (name) DO NOTHING
                RETURNING *
            ), audited AS (
                INSERT INTO audit_log (actor, action, target, detail)
                SELECT \(actor), 'add', 'schedule:' || name, cron || ' ' || kind FROM added
            )
            SELECT \(unescaped: Self.scheduleColumns) FROM added
            """, logger: logger)
        guard let schedule = try await Self.decodeSchedules(rows).first else {
            throw QueueError.conflict("a schedule named '\(new.name)' already exists; remove it first to change it")
        }
        return schedule
    }

    /// Every schedule, by name.
    package func list() async throws -> [Schedule] {
        let rows = try await client.query("SELECT \(unescaped: Self.scheduleColumns) FROM schedules ORDER BY name", logger: logger)
        return try await Self.decodeSchedules(rows)
    }

    package func find(named name: String) async throws -> Schedule {
        let rows = try await client.query("SELECT \(unescaped: Self.scheduleColumns) FROM schedules WHERE name = \(name)", logger: logger)
        guard let schedule = try await Self.decodeSchedules(rows).first else { throw Self.noSchedule(name) }
        return schedule
    }

    /// Removes a schedule; the jobs it enqueued stay.
    package func remove(named name: String, actor: String) async throws {
        let removed = try await scalar("""
            WITH removed AS (DELETE FROM schedules WHERE name = \(name) RETURNING name), audited AS (
                INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'remove', 'schedule:' || name FROM removed
            ) SELECT count(*)::int FROM removed
            """, as: Int.self) ?? 0
        if removed == 0 { throw Self.noSchedule(name) }
    }

    /// Stops enqueueing a schedule's ticks until it is resumed. Ticks that pass while it is paused
    /// are skipped, not caught up.
    package func pause(named name: String, actor: String) async throws {
        let changed = try await scalar("""
            WITH changed AS (
                UPDATE schedules SET paused = true, updated_at = now() WHERE name = \(name) RETURNING name
            ), audited AS (
                INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'pause', 'schedule:' || name FROM changed
            ) SELECT count(*)::int FROM changed
            """, as: Int.self) ?? 0
        if changed == 0 { throw Self.noSchedule(name) }
    }

    /// Enqueues a schedule's ticks again, from the first after `now`.
    package func resume(named name: String, actor: String, now: Date = Date()) async throws {
        let schedule = try await find(named: name)
        guard schedule.paused else { return }
        let cron: CronExpression
        do throws(CronError) { cron = try CronExpression(schedule.cron) } catch { throw QueueError.invalidArgument(error.message) }
        guard let next = cron.next(after: max(now, schedule.lastTick ?? now)) else {
            throw QueueError.invalidArgument("'\(schedule.cron)' never fires")
        }
        let changed = try await scalar("""
            WITH changed AS (
                UPDATE schedules SET paused = false, next_tick = \(next), updated_at = now()
                 WHERE name = \(name) AND (last_tick IS NULL OR last_tick < \(next)) RETURNING name
            ), audited AS (
                INSERT INTO audit_log (actor, action, target) SELECT \(actor), 'resume', 'schedule:' || name FROM changed
            ) SELECT count(*)::int FROM changed
            """, as: Int.self) ?? 0
        if changed == 0 { throw Self.noSchedule(name) }
    }

    static func noSchedule(_ name: String) -> QueueError {
        .scheduleNotFound("no schedule named '\(name.prefix(80))' (atelier schedules list shows them)")
    }

    static func decodeSchedules(_ rows: PostgresRowSequence) async throws -> [Schedule] {
        var schedules: [Schedule] = []
        for try await (name, cron, kind, queue, payload, priority, maxAttempts, owner, paused, next, last, lastJob, created)
            in rows.decode((String, String, String, String, String, Int, Int, String, Bool, Date, Date?, UUID?, Date).self) {
            schedules.append(Schedule(name: name, cron: cron, kind: kind, queue: queue, payload: payload, priority: priority,
                                      maxAttempts: maxAttempts, owner: owner, paused: paused, nextTick: next, lastTick: last,
                                      lastJobID: lastJob, createdAt: created))
        }
        return schedules
    }
}
