import ArgumentParser
import AtelierQueue
import AtelierStorage
import AtelierWorker
import Logging
import Foundation

struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "List, inspect, enqueue, retry, cancel and purge jobs (one, or all a filter matches).",
        subcommands: [List.self, Show.self, Enqueue.self, Retry.self, Cancel.self, Purge.self, Bulk.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Jobs, newest first.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only jobs in these states (comma-separated): queued, running, succeeded, failed, cancelled.")
        var state: String?
        @Option(help: "Only jobs of these kinds (comma-separated).") var kind: String?
        @Option(help: "Only jobs of these queues (comma-separated).") var queue: String?
        @Option(name: .customLong("where"), help: "A filter term name=value, as `jobs cancel --where` takes (repeat for more).")
        var terms: [String] = []
        @Option(help: "How many jobs to show.") var limit = 50
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            guard (1...10_000).contains(limit) else { throw fail(QueueError.invalidArgument("--limit must be between 1 and 10000")) }
            var query = JobBrowseQuery()
            let shorthands = [("state", state), ("kind", kind), ("queue", queue)].compactMap { name, value in value.map { "\(name)=\($0)" } }
            do { query.criteria = try JobCriteria(terms: shorthands + terms) } catch { throw fail(error) }
            query.limit = limit
            let (json, browse) = (self.json, query)
            try await withQueue(database) { queue in
                let (jobs, more) = try await queue.browse(browse)
                let total = more ? Int(try await queue.count(matching: browse.criteria)) : jobs.count
                if json {
                    JSONOutput.print(["jobs": jobs.map(JSONOutput.job), "total": total])
                    return
                }
                var table = Table("ID", "KIND", "QUEUE", "STATE", "PRI", "ATTEMPT", "CREATED", "ERROR")
                let now = Date()
                for job in jobs {
                    table.add(job.id.uuidString.lowercased(), job.kind, job.queue, job.state.rawValue, String(job.priority),
                              "\(job.attempt)/\(job.maxAttempts)",
                              DurationText.format(seconds: now.timeIntervalSince(job.createdAt)) + " ago",
                              String((job.error ?? "").prefix(60)))
                }
                say(jobs.isEmpty ? "no jobs match" : table.render())
                if total > jobs.count { say("(\(jobs.count) of \(total); use --limit (up to 10000) or a narrower --where to see more)") }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One job with its events and error history.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Job id.") var id: String
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let (text, json) = (id, self.json)
            try await withQueue(database) { queue in
                let id = try JobID.parse(text)
                let job = try await queue.job(id: id)
                let events = try await queue.events(jobID: id)
                let children = try await queue.children(of: id)
                if json {
                    var object = JSONOutput.job(job)
                    object["events"] = events.map(JSONOutput.event)
                    object["children"] = children.map { $0.id.uuidString.lowercased() }
                    JSONOutput.print(object)
                    return
                }
                let time = { (date: Date?) in date.map { JSONOutput.iso8601.string(from: $0) } ?? "-" }
                var fields: [(String, String)] = [
                    ("id", job.id.uuidString.lowercased()), ("kind", job.kind), ("queue", job.queue),
                    ("state", job.state.rawValue), ("priority", String(job.priority)), ("owner", job.owner),
                    ("attempt", "\(job.attempt - job.crashes - job.snoozes) of \(job.maxAttempts)"),
                    ("crashes", "\(job.crashes) attempt(s) lost to a stopped worker, \(job.crashStreak) in a row running alone (not counted above)"
                        + (job.runAlone ? "; runs alone next" : "")),
                    ("progress", "\(job.progress)%" + (job.progressStep.map { " (\($0))" } ?? "")),
                    ("created", time(job.createdAt)), ("run at", time(job.runAt)), ("started", time(job.startedAt)),
                    ("finished", time(job.finishedAt)), ("payload", job.payload), ("result", job.result ?? "-"),
                    ("error", job.error ?? "-"),
                ]
                if let owner = job.leaseOwner { fields.append(("lease", "\(owner) until \(time(job.leaseExpiresAt))")) }
                if let key = job.idempotencyKey { fields.append(("idempotency key", key)) }
                if let request = job.requestID { fields.append(("request id", request)) }
                if let parent = job.parentID { fields.append(("parent", parent.uuidString.lowercased())) }
                if let followUp = job.followUp, let list = JSONOutput.embedded(followUp) as? [[String: Any]], !list.isEmpty {
                    let kinds = list.compactMap { $0["kind"] as? String }.joined(separator: ", ")
                    fields.append(("then", job.state == .succeeded ? "\(kinds) (enqueued: see children)" : "\(kinds) (enqueued when this job succeeds)"))
                }
                if !children.isEmpty { fields.append(("children", children.map { "\($0.id.uuidString.lowercased()) (\($0.kind), \($0.state.rawValue))" }.joined(separator: ", "))) }
                if job.snoozes > 0 {
                    fields.append(("snoozes", "\(job.snoozes) attempt(s) given back during an outage, \(job.snoozeStreak) in a row (not counted above)"))
                }
                if job.cancelRequested { fields.append(("cancel", "requested")) }
                let width = fields.map(\.0.count).max() ?? 0
                for (name, value) in fields { say(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
                if let history = JSONOutput.embedded(job.errors) as? [[String: Any]], !history.isEmpty {
                    say("\nerrors:")
                    var table = Table("ATTEMPT", "AT", "ERROR")
                    for entry in history {
                        table.add("\(entry["attempt"] ?? "")", "\(entry["at"] ?? "")",
                                  (entry["crash"] as? Bool == true ? "[crash] " : "") + "\(entry["error"] ?? "")")
                    }
                    say(table.render())
                }
                say("\nevents:")
                var table = Table("ID", "AT", "TYPE", "DATA")
                for event in events { table.add(String(event.id), time(event.createdAt), event.type, event.data) }
                say(events.isEmpty ? "(none yet)" : table.render())
            }
        }
    }

    struct Enqueue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enqueue jobs by hand (e.g. `atelier jobs enqueue noop --count 1000` to smoke-test workers).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Job kind.") var kind: String
        @Option(help: "JSON object handed to the handler.") var payload = "{}"
        @Option(help: "Queue name.") var queue = "default"
        @Option(help: "Priority, -100…100; higher runs first.") var priority = 0
        @Option(help: "Run no earlier than this from now (e.g. 30s, 5m).") var delay: String?
        @Option(help: "Attempts before the job fails.") var maxAttempts = 5
        @Option(help: "Return the existing job if one has this key.") var idempotencyKey: String?
        @Option(help: "How many identical jobs (one statement per 1000).") var count = 1
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let delay = try self.delay.map { text in
                do { return try DurationText.parse(text) } catch { throw fail(error) }
            }
            guard (1...1_000_000).contains(count) else { throw fail(QueueError.invalidArgument("--count must be between 1 and 1000000")) }
            let job = NewJob(kind: kind, payload: payload, queue: queue, priority: priority, maxAttempts: maxAttempts,
                             delay: delay, idempotencyKey: idempotencyKey)
            let (count, json) = (self.count, self.json)
            try await withQueue(database) { queue in
                var results: [EnqueuedJob] = []
                var remaining = count
                while remaining > 0 {
                    let batch = min(remaining, 1000)
                    results += try await queue.enqueue(Array(repeating: job, count: batch))
                    remaining -= batch
                }
                if json {
                    JSONOutput.print(results.map { ["id": $0.id.uuidString.lowercased(), "inserted": $0.inserted] as [String: Any] })
                } else if count == 1 {
                    say(results[0].id.uuidString.lowercased() + (results[0].inserted ? "" : " (existing job with that idempotency key)"))
                } else {
                    say("enqueued \(results.filter(\.inserted).count) \(job.kind) jobs on queue \(job.queue)")
                }
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a failed or cancelled job back in the queue, or every one a filter matches (--where, or --failed).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Job id.") var id: String?
        @Flag(help: "Every failed job (the same as --where state=failed).") var failed = false
        @Option(help: "With --failed: only this kind.") var kind: String?
        @OptionGroup var bulk: BulkOptions

        func validate() throws {
            guard (id != nil) != (failed || bulk.isBulk) else { throw ValidationError("give a job id, or --where/--failed, not both") }
        }

        func run() async throws {
            if let text = id {
                try await withQueue(database) { queue in
                    try await queue.retry(id: try JobID.parse(text))
                    say("job \(text) queued again")
                }
                return
            }
            var terms = bulk.terms
            if failed { terms.append("state=failed") }
            if let kind { terms.append("kind=\(kind)") }
            let criteria: JobCriteria
            do { criteria = try JobCriteria(terms: terms) } catch { throw fail(error) }
            try await BulkJobs.run(.retry, criteria: criteria, options: bulk, database: database)
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a job, or every one a filter matches (--where): at once if queued; a running job is told to stop.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Job id.") var id: String?
        @OptionGroup var bulk: BulkOptions

        func validate() throws {
            guard (id != nil) != bulk.isBulk else { throw ValidationError("give a job id or --where, not both") }
        }

        func run() async throws {
            guard let text = id else {
                let criteria: JobCriteria
                do { criteria = try JobCriteria(terms: bulk.terms) } catch { throw fail(error) }
                try await BulkJobs.run(.cancel, criteria: criteria, options: bulk, database: database)
                return
            }
            try await withQueue(database) { queue in
                let state = try await queue.cancel(id: try JobID.parse(text), reason: "cancelled by operator")
                switch state {
                case .cancelled: say("job \(text) is cancelled")
                case .running: say("job \(text) is running; its worker has been told to stop it")
                default: throw QueueError.conflict("job \(text) already \(state.rawValue); nothing to cancel")
                }
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete finished jobs (succeeded, failed, cancelled) with their events and files: all older than an age, or all a filter matches (--where).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only jobs that finished longer ago than this (e.g. 7d, 12h, 0s for all).")
        var olderThan: String?
        @OptionGroup var bulk: BulkOptions

        func validate() throws {
            guard (olderThan != nil) != bulk.isBulk else { throw ValidationError("give --older-than or --where, not both") }
        }

        func run() async throws {
            guard let olderThan else {
                let criteria: JobCriteria
                do { criteria = try JobCriteria(terms: bulk.terms) } catch { throw fail(error) }
                try await BulkJobs.run(.purge, criteria: criteria, options: bulk, database: database)
                return
            }
            let age: Duration
            do { age = try DurationText.parse(olderThan) } catch { throw fail(error) }
            let blobs: any BlobStore
            do { blobs = try Settings().blobStore() } catch { throw fail(error) }
            try await withQueue(database) { queue in
                let purged = try await JobPurger(queue: queue, blobs: blobs, logger: Logger(label: "atelier.purge"))
                    .purge(olderThan: age)
                say("purged \(purged.count) finished job(s) older than \(olderThan), with their files")
            }
        }
    }
}
