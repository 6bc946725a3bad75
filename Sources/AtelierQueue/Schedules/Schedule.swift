import Foundation

/// A cron schedule as stored: every tick of `cron` (UTC) the maintenance leader enqueues one job
/// of `kind` with `payload` on `queue` (docs/queue.md, "Schedules").
package struct Schedule: Sendable, Equatable {
    package var name: String
    package var cron: String
    package var kind: String
    package var queue: String
    /// JSON object text, as stored (jsonb's normal form).
    package var payload: String
    package var priority: Int
    package var maxAttempts: Int
    package var owner: String
    package var paused: Bool
    /// The next tick to enqueue (while paused: the one that was next when it was paused).
    package var nextTick: Date
    /// The newest tick enqueued, and its job (which retention may have purged since).
    package var lastTick: Date?
    package var lastJobID: UUID?
    package var createdAt: Date
}

/// What `atelier schedules add` asks for.
package struct NewSchedule: Sendable {
    package var name: String
    package var cron: String
    package var kind: String
    package var payload: String
    package var queue: String
    package var priority: Int
    package var maxAttempts: Int
    package var owner: String

    package init(name: String, cron: String, kind: String, payload: String = "{}", queue: String = "default",
                 priority: Int = Priority.normal, maxAttempts: Int = 5, owner: String = "system") {
        (self.name, self.cron, self.kind, self.payload, self.queue) = (name, cron, kind, payload, queue)
        (self.priority, self.maxAttempts, self.owner) = (priority, maxAttempts, owner)
    }

    /// The parsed expression, after the checks an enqueue makes of the job it will enqueue.
    func validate() throws(QueueError) -> CronExpression {
        try Schedule.validate(name: name)
        try NewJob(kind: kind, payload: payload, queue: queue, priority: priority, owner: owner, maxAttempts: maxAttempts).validate()
        try JobQueue.requireJSONObject(payload, what: "payload")
        do throws(CronError) {
            return try CronExpression(cron)
        } catch {
            throw .invalidArgument(error.message)
        }
    }
}

extension Schedule {
    /// Names are 1–64 letters, digits, `-`, `_`, `.` and `:`: they go on command lines, in
    /// console URLs and in the `request_id` of their jobs as they are.
    static func validate(name: String) throws(QueueError) {
        let allowed = name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw .invalidArgument("a schedule name is 1–64 letters, digits, '-', '_', '.' or ':', got '\(name.prefix(80))'")
        }
    }
}

/// One tick the maintenance leader found due: enqueue `tick` of schedule `name`, then wait for
/// `next`. After downtime `tick` is the newest tick missed, so at most one missed tick runs.
package struct ScheduleTick: Sendable, Equatable {
    package var name: String
    package var tick: Date
    package var next: Date

    package init(name: String, tick: Date, next: Date) {
        (self.name, self.tick, self.next) = (name, tick, next)
    }
}
