import ArgumentParser
import AtelierAPI
import AtelierQueue
import Foundation

struct SchedulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedules", abstract: "Cron schedules: jobs the maintenance leader enqueues on a timetable (UTC).",
        subcommands: [List.self, Add.self, Remove.self, Pause.self, Resume.self], defaultSubcommand: List.self)

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enqueue a job of a kind at every tick of a cron expression (`--cron \"*/5 * * * *\"`, UTC).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Schedule name: 1–64 letters, digits, '-', '_', '.' or ':'.") var name: String
        @Option(help: "Five fields, in UTC: minute hour day-of-month month day-of-week (or @hourly, @daily …).") var cron: String
        @Option(help: "Job kind (one this build's workers run).") var kind: String
        @Option(help: "JSON object handed to the handler, checked as the API checks a request's options.") var payload = "{}"
        @Option(help: "Queue name (default: the kind's).") var queue: String?
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            // The kind and its payload are checked as the API checks them, with the same catalog.
            let catalog: JobKindCatalog
            do { catalog = try BuiltInKinds.catalog(settings: Settings()) } catch { throw fail(error) }
            guard let kind = catalog[kind] else {
                throw fail(QueueError.invalidArgument("unknown kind '\(self.kind.prefix(64))'; one of: \(catalog.names.joined(separator: ", "))"))
            }
            let payload: String
            do throws(APIError) {
                payload = try kind.checkedPayload(json: self.payload)
            } catch {
                throw fail(QueueError.invalidArgument(error.message))
            }
            let new = NewSchedule(name: name, cron: cron, kind: kind.name, payload: payload, queue: queue ?? kind.queue,
                                  priority: kind.priority, maxAttempts: kind.maxAttempts)
            let json = self.json
            try await withQueue(database) { queue in
                let schedule = try await queue.schedules.add(new, actor: OperatorIdentity.cli)
                if json {
                    JSONOutput.print(SchedulesCommand.json(schedule))
                } else {
                    say("schedule \(schedule.name) added; first tick \(JSONOutput.iso8601.string(from: schedule.nextTick))")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every schedule with its next and last tick.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let json = self.json
            try await withQueue(database) { queue in
                let schedules = try await queue.schedules.list()
                if json {
                    JSONOutput.print(schedules.map(SchedulesCommand.json))
                    return
                }
                if schedules.isEmpty {
                    say("no schedules (add one with `atelier schedules add`)")
                    return
                }
                let time = { (date: Date?) in date.map { Self.minute.string(from: $0) } ?? "-" }
                var table = Table("NAME", "CRON", "KIND", "QUEUE", "STATE", "NEXT (UTC)", "LAST (UTC)", "LAST JOB")
                for s in schedules {
                    table.add(s.name, s.cron, s.kind, s.queue, s.paused ? "paused" : "active", s.paused ? "-" : time(s.nextTick),
                              time(s.lastTick), s.lastJobID?.uuidString.lowercased() ?? "-")
                }
                say(table.render())
            }
        }

        static let minute: DateFormatter = {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            return formatter
        }()
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a schedule (the jobs it enqueued stay).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Schedule name.") var name: String

        func run() async throws {
            let name = self.name
            try await withQueue(database) { queue in
                try await queue.schedules.remove(named: name, actor: OperatorIdentity.cli)
                say("removed schedule \(name)")
            }
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop enqueueing a schedule's ticks (those missed are not caught up).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Schedule name.") var name: String

        func run() async throws {
            let name = self.name
            try await withQueue(database) { queue in
                try await queue.schedules.pause(named: name, actor: OperatorIdentity.cli)
                say("paused schedule \(name)")
            }
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enqueue a schedule's ticks again, from the next one.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Schedule name.") var name: String

        func run() async throws {
            let name = self.name
            try await withQueue(database) { queue in
                try await queue.schedules.resume(named: name, actor: OperatorIdentity.cli)
                say("resumed schedule \(name)")
            }
        }
    }

    static func json(_ schedule: Schedule) -> [String: Any] {
        [
            "name": schedule.name, "cron": schedule.cron, "kind": schedule.kind, "queue": schedule.queue,
            "payload": JSONOutput.embedded(schedule.payload), "priority": schedule.priority, "max_attempts": schedule.maxAttempts,
            "owner": schedule.owner, "paused": schedule.paused, "next_tick": JSONOutput.time(schedule.nextTick),
            "last_tick": JSONOutput.time(schedule.lastTick), "last_job_id": JSONOutput.value(schedule.lastJobID?.uuidString.lowercased()),
            "created_at": JSONOutput.time(schedule.createdAt),
        ]
    }
}
