import ArgumentParser
import AtelierDatabase
import AtelierQueue
import AtelierWorker
import Foundation
import Logging
import ServiceLifecycle

struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "work",
        abstract: "Run worker processes: claim jobs, run them, record results. SIGTERM/SIGINT drain and exit 0.",
        discussion: """
            Scale by process count: --processes P starts P worker processes under a supervisor that
            restarts any that dies; more processes on other machines can share the same database.
            Environment: ATELIER_WORKER_CONCURRENCY, ATELIER_WORKER_PROCESSES, ATELIER_QUEUES, ATELIER_KINDS,
            ATELIER_LEASE, ATELIER_HEARTBEAT_INTERVAL, ATELIER_POLL_INTERVAL, ATELIER_RESCUE_INTERVAL,
            ATELIER_DRAIN_TIMEOUT, ATELIER_STOP_GRACE (30s: a handler told to stop that has not returned this
            long after is abandoned, its job handed back, and the process exits with status 75 to be replaced),
            ATELIER_RETENTION (e.g. 7d; 0 keeps finished jobs forever),
            ATELIER_CRASH_LIMIT (5), ATELIER_ISOLATION_WAIT (5s), ATELIER_ORPHAN_GRACE (1h; 0 turns the orphan sweep off),
            ATELIER_SWEEP_INTERVAL (10m), ATELIER_CLAIM_WITH_COMPLETIONS (on: a flush of finished jobs claims
            the next ones in the same round trip), ATELIER_DATA_DIR (blobs for image jobs),
            ATELIER_BLOB_STORE (local | s3, with ATELIER_S3_*), ATELIER_STARTUP_WAIT (0: how long to wait for the
            database, its schema and the blob store at start), ATELIER_LOG_FORMAT (text | json: JSON lines on standard output).
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Jobs run at once per process (default 8).") var concurrency: Int?
    @Option(help: "Worker processes to run under a supervisor (default 1).") var processes: Int?
    @Option(help: "Queues to claim from, comma-separated (default: default).") var queues: String?
    @Option(help: "Only these job kinds, comma-separated (default: every kind this build knows).") var kinds: String?

    func run() async throws {
        let settings = Settings()
        do {
            try settings.bootstrapLogging(fallback: .info, service: true)
            let logger = Logger(label: "atelier.work")
            var configuration = WorkerConfiguration()
            configuration.version = AtelierVersion.current
            configuration.concurrency = try concurrency ?? settings.int("ATELIER_WORKER_CONCURRENCY") ?? configuration.concurrency
            configuration.queues = queues.map { $0.split(separator: ",").map(String.init) } ?? settings.list("ATELIER_QUEUES") ?? configuration.queues
            configuration.lease = try settings.duration("ATELIER_LEASE") ?? configuration.lease
            configuration.heartbeatInterval = try settings.duration("ATELIER_HEARTBEAT_INTERVAL") ?? configuration.heartbeatInterval
            configuration.pollInterval = try settings.duration("ATELIER_POLL_INTERVAL") ?? configuration.pollInterval
            configuration.rescueInterval = try settings.duration("ATELIER_RESCUE_INTERVAL") ?? configuration.rescueInterval
            configuration.drainTimeout = try settings.duration("ATELIER_DRAIN_TIMEOUT") ?? configuration.drainTimeout
            configuration.stopGrace = try settings.duration("ATELIER_STOP_GRACE") ?? configuration.stopGrace
            if let retention = try settings.duration("ATELIER_RETENTION") {
                configuration.retention = retention == .zero ? nil : retention
            }
            configuration.crashLimit = try settings.int("ATELIER_CRASH_LIMIT") ?? configuration.crashLimit
            configuration.isolationWait = try settings.duration("ATELIER_ISOLATION_WAIT") ?? configuration.isolationWait
            if let grace = try settings.duration("ATELIER_ORPHAN_GRACE") {
                configuration.orphanGrace = grace == .zero ? nil : grace
            }
            configuration.sweepInterval = try settings.duration("ATELIER_SWEEP_INTERVAL") ?? configuration.sweepInterval
            configuration.claimWithCompletions = try settings.bool("ATELIER_CLAIM_WITH_COMPLETIONS") ?? true
            configuration.chores = AppChores.all
            try configuration.validate()
            let processes = try self.processes ?? settings.int("ATELIER_WORKER_PROCESSES") ?? 1
            guard (1...256).contains(processes) else { throw QueueError.invalidArgument("--processes must be between 1 and 256") }
            let blobs = try settings.blobStore()
            var handlers = HandlerRegistry(try BuiltInKinds.handlers(blobs: blobs, settings: settings))
            if let kinds = kinds.map({ $0.split(separator: ",").map(String.init) }) ?? settings.list("ATELIER_KINDS") {
                let diagnostic = Set(["noop", "sleep", "fail", "echo", "crash"]).intersection(kinds)
                if !diagnostic.isEmpty, try !BuiltInKinds.diagnosticsEnabled(settings) {
                    throw QueueError.invalidArgument("\(diagnostic.sorted().joined(separator: ", ")): diagnostic kinds run only with ATELIER_DIAGNOSTIC_KINDS=true")
                }
                do { handlers = try handlers.restricted(to: kinds) } catch { throw QueueError.invalidArgument("\(error)") }
            }
            let url = try settings.databaseURL(flag: database.databaseURL)
            let wait = try StartupWait(settings: settings, logger: logger)
            try await wait.retrying("the database") { try await JobQueue.checkReachable(url, logger: logger) }
            if wait.limit > .zero { try await wait.retrying("the blob store") { try await blobs.check() } }

            if processes > 1 {
                try await superviseProcesses(processes, configuration: configuration, handlers: handlers, logger: logger)
                return
            }
            // The pool's own lines (connections made, lost, refused) name the process that wrote
            // them: a supervised worker's processes share one log.
            var queueLogger = logger
            queueLogger[metadataKey: "pid"] = "\(ProcessInfo.processInfo.processIdentifier)"
            let queue = JobQueue(url: url, applicationName: "atelier-worker",
                                 maxConnections: configuration.concurrency + 4,
                                 fairShare: try settings.fairShare(), logger: queueLogger)
            let worker = try Worker(queue: queue, handlers: handlers, configuration: configuration, logger: logger, blobs: blobs)
            let group = ServiceGroup(configuration: .init(
                services: [
                    .init(service: QueueConnections(queue: queue)),
                    .init(service: SchemaCheckedService(queue: queue, wait: wait, inner: worker), successTerminationBehavior: .gracefullyShutdownGroup),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
            try await group.run()
        } catch {
            throw fail(error)
        }
    }

    /// Starts `processes` single-process workers with the same settings and keeps them running.
    private func superviseProcesses(_ processes: Int, configuration: WorkerConfiguration,
                                    handlers: HandlerRegistry, logger: Logger) async throws {
        var arguments = ["work", "--processes", "1", "--concurrency", String(configuration.concurrency),
                         "--queues", configuration.queues.joined(separator: ","), "--kinds", handlers.kinds.joined(separator: ",")]
        if let url = database.databaseURL { arguments += ["--database-url", url] }
        let supervisor = Supervisor(executable: Self.executableURL, arguments: arguments, processes: processes, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: supervisor, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    static var executableURL: URL {
        #if os(Linux)
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        #endif
    }
}

/// Refuses to start a service against a database whose schema does not match this build.
/// With `ATELIER_STARTUP_WAIT`, a schema still being migrated is waited for (``StartupWait``).
struct SchemaCheckedService: Service {
    let queue: JobQueue
    let wait: StartupWait
    let inner: any Service

    func run() async throws {
        try await wait.retrying("the database schema") { try await Migrator.requireCurrent(database: queue.database, lines: SchemaLines.all) }
        try await inner.run()
    }
}

/// The queue's connection pool, with its dead-connection detector (``JobQueue/run()``), as a
/// service: it stops last, when the worker has drained.
private struct QueueConnections: Service {
    let queue: JobQueue

    func run() async throws {
        await cancelWhenGracefulShutdown { await queue.run() }
    }
}
