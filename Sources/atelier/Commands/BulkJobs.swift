import ArgumentParser
import AtelierQueue
import AtelierStorage
import Dispatch
import Foundation
import Logging

/// `--where …`, `--dry-run`, `--yes`, `--batch-size`: how `atelier jobs cancel|retry|purge` act
/// on every job a filter matches (``JobCriteria``) instead of one id.
struct BulkOptions: ParsableArguments {
    @Option(name: .customLong("where"),
            help: "A filter term name=value (repeat for more): kind, state, queue (comma-separated lists), owner, created-after, created-before, finished-after, finished-before (ISO 8601 or a duration ago: 90m, 12h, 7d), error (text the last error contains).")
    var terms: [String] = []
    @Flag(help: "Print how many jobs match and a sample of them; change nothing.") var dryRun = false
    @Flag(help: "Act without asking, however many jobs match.") var yes = false
    @Option(help: "Jobs per transaction, 1–10000.") var batchSize = 1_000
    @Option(help: "The share of the time spent in batches, 0.01–1: after each, a pause (1/share − 1) times as long, so the workers keep the database (1: no pause).")
    var share = BulkActionRunner.defaultShare

    /// More jobs than this need `--yes` (or a typed `yes` at a terminal).
    static let confirmAbove: Int64 = 1_000

    var isBulk: Bool { !terms.isEmpty }
}

enum BulkJobs {
    /// Runs a bulk action in the foreground: the dry run, the confirmation, then the batches with
    /// a progress line on stderr. Ctrl-C stops the action after its current batch (exit 130).
    static func run(_ action: BulkActionKind, criteria: JobCriteria, options: BulkOptions, database: DatabaseOptions) async throws {
        guard (1...10_000).contains(options.batchSize) else {
            throw fail(QueueError.invalidArgument("--batch-size must be between 1 and 10000"))
        }
        guard (0.01...1).contains(options.share) else { throw fail(QueueError.invalidArgument("--share must be between 0.01 and 1")) }
        let blobs: (any BlobStore)?
        do { blobs = action == .purge ? try Settings().blobStore() : nil } catch { throw fail(error) }
        try await withQueue(database) { queue in
            let preview = try await queue.bulkActions.preview(action, criteria)
            let applies = action.actsOn.map(\.rawValue).joined(separator: " or ")
            say("\(preview.count) \(applies) job(s) match \(criteria.text)")
            if !preview.sample.isEmpty {
                var table = Table("ID", "KIND", "QUEUE", "STATE", "OWNER", "ERROR")
                for job in preview.sample {
                    table.add(job.id.uuidString.lowercased(), job.kind, job.queue, job.state.rawValue, job.owner, String((job.error ?? "").prefix(50)))
                }
                say(table.render())
                if preview.count > Int64(preview.sample.count) { say("(the newest \(preview.sample.count) shown)") }
            }
            if options.dryRun || preview.count == 0 { return }
            if preview.count > BulkOptions.confirmAbove && !options.yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw QueueError.invalidArgument("\(preview.count) jobs match; add --yes to \(action.rawValue) them (--dry-run shows them first)")
                }
                FileHandle.standardError.write(Data("type yes to \(action.rawValue) \(preview.count) jobs: ".utf8))
                guard readLine(strippingNewline: true)?.lowercased() == "yes" else {
                    say("nothing done")
                    return
                }
            }
            let started = try await queue.bulkActions.begin(action, criteria, actor: OperatorIdentity.cli, batchSize: options.batchSize)
            say("bulk action \(started.id) started")
            try await follow(started.id, queue: queue, blobs: blobs, share: options.share)
        }
    }

    /// Takes the batches of action `id` until it is done or stopped, printing progress.
    static func follow(_ id: Int64, queue: JobQueue, blobs: (any BlobStore)?, share: Double = BulkActionRunner.defaultShare) async throws {
        let logger = Logger(label: "atelier.bulk")
        let runner = BulkActionRunner(queue: queue, logger: logger, share: share) { purged in
            await blobs?.removeFolders(ofDeletedJobs: purged, logger: logger)
        }
        let interrupt = StopOnInterrupt(queue: queue, id: id)
        defer { interrupt.cancel() }
        let terminal = isatty(STDERR_FILENO) == 1
        let ended = try await runner.run(id) { action in
            let line = "\(action.action.done) \(action.acted) of \(action.matched)"
                + (action.stopping > 0 ? ", \(action.stopping) running told to stop" : "")
            FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
        }
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
        switch ended.state {
        case .done:
            say("bulk action \(id) done: \(ended.action.done) \(ended.acted) job(s)"
                + (ended.stopping > 0 ? "; \(ended.stopping) running job(s) told to stop" : ""))
        case .stopped:
            say("bulk action \(id) stopped after \(ended.acted) job(s); `atelier jobs bulk resume \(id)` continues it")
        case .running:
            break
        }
    }

    static func show(_ action: BulkAction) {
        let time = { (date: Date?) in date.map { JSONOutput.iso8601.string(from: $0) } ?? "-" }
        let fields: [(String, String)] = [
            ("id", String(action.id)), ("action", action.action.rawValue), ("filter", action.filter), ("by", action.actor),
            ("state", action.state.rawValue), ("matched", "\(action.matched) when it began"),
            (action.action.done, String(action.acted)), ("told to stop", String(action.stopping)),
            ("batches", "\(action.batches) of up to \(action.batchSize)"), ("started", time(action.startedAt)),
            ("updated", time(action.updatedAt)), ("finished", time(action.finishedAt)),
        ]
        let width = fields.map(\.0.count).max() ?? 0
        for (name, value) in fields { say(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
    }

    static func json(_ action: BulkAction) -> [String: Any] {
        let time = { (date: Date?) -> Any in date.map { JSONOutput.iso8601.string(from: $0) } ?? NSNull() }
        return ["id": action.id, "action": action.action.rawValue, "filter": action.filter, "actor": action.actor,
                "state": action.state.rawValue, "matched": action.matched, "acted": action.acted, "stopping": action.stopping,
                "batches": action.batches, "batch_size": action.batchSize, "started_at": time(action.startedAt),
                "updated_at": time(action.updatedAt), "finished_at": time(action.finishedAt)]
    }
}

/// While a bulk action runs in the foreground, Ctrl-C stops it (between batches) and exits 130.
final class StopOnInterrupt: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    init(queue: JobQueue, id: Int64) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            Task {
                _ = try? await queue.bulkActions.stop(id: id, actor: OperatorIdentity.cli)
                FileHandle.standardError.write(Data("\nbulk action \(id) stopped; `atelier jobs bulk resume \(id)` continues it\n".utf8))
                exit(130)
            }
        }
        source.resume()
    }

    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

extension JobsCommand {
    struct Bulk: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bulk actions (jobs cancel|retry|purge --where …): list, show, stop, resume.",
            subcommands: [BulkList.self, BulkShow.self, BulkStop.self, BulkResume.self])
    }

    struct BulkList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Bulk actions, newest first.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let json = self.json
            try await withQueue(database) { queue in
                let actions = try await queue.bulkActions.list(limit: 100)
                if json {
                    JSONOutput.print(["bulk_actions": actions.map(BulkJobs.json)])
                    return
                }
                var table = Table("ID", "ACTION", "STATE", "DONE", "BY", "STARTED", "FILTER")
                for action in actions {
                    table.add(String(action.id), action.action.rawValue, action.state.rawValue, "\(action.acted)/\(action.matched)",
                              action.actor, JSONOutput.iso8601.string(from: action.startedAt), action.filter)
                }
                say(actions.isEmpty ? "no bulk actions" : table.render())
            }
        }
    }

    struct BulkShow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One bulk action: its filter, progress and counts.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Bulk action id.") var id: Int64
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let (id, json) = (self.id, self.json)
            try await withQueue(database) { queue in
                let action = try await queue.bulkActions.find(id: id)
                if json { JSONOutput.print(BulkJobs.json(action)) } else { BulkJobs.show(action) }
            }
        }
    }

    struct BulkStop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop a bulk action before its next batch.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Bulk action id.") var id: Int64

        func run() async throws {
            let id = self.id
            try await withQueue(database) { queue in
                let action = try await queue.bulkActions.stop(id: id, actor: OperatorIdentity.cli)
                say("bulk action \(id) stopped after \(action.acted) job(s)")
            }
        }
    }

    struct BulkResume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Continue a stopped bulk action (or one whose runner died) in the foreground.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Bulk action id.") var id: Int64

        func run() async throws {
            let id = self.id
            try await withQueue(database) { queue in
                let action = try await queue.bulkActions.resume(id: id, actor: OperatorIdentity.cli)
                let blobs = action.action == .purge ? try Settings().blobStore() : nil
                try await BulkJobs.follow(id, queue: queue, blobs: blobs)
            }
        }
    }
}
