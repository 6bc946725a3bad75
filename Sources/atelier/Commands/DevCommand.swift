import ArgumentParser
import AtelierAPI
import AtelierApps
import AtelierDatabase
import AtelierQueue
import AtelierWorker
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import Logging
import ServiceLifecycle

struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Everything in one process for a first run: migrate, the API and a worker; prints the URL and a ready token.",
        discussion: """
            The token is kept in --token-file (mode 0600) and reused while it is valid, so restarts keep working with the
            same token. ./ops/run starts PostgreSQL, sets the environment and runs this. Settings as for serve and work.
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "host:port to listen on, or several, comma-separated (default: $ATELIER_LISTEN or 127.0.0.1:8080).")
    var listen: String?
    @Option(help: "Jobs run at once per worker (default 4).") var concurrency: Int?
    @Option(help: "Run the workers as this many supervised `atelier work` processes instead of one in-process worker.")
    var processes: Int?
    @Option(name: .customLong("token-file"), help: "Where the dev token is kept (default: .atelier/dev-token).")
    var tokenFile = ".atelier/dev-token"

    func run() async throws {
        let settings = Settings()
        do {
            try settings.bootstrapLogging(fallback: .info, service: true)
            let logger = Logger(label: "atelier.dev")
            let configuration = try settings.apiConfiguration(listen: listen)
            let url = try settings.databaseURL(flag: database.databaseURL)
            try await JobQueue.checkReachable(url, logger: logger)
            var quiet = logger
            quiet.logLevel = .error
            let token = try await JobQueue.withQueue(url: url, applicationName: "atelier-dev-setup", logger: quiet) { queue in
                _ = try await Migrator(database: queue.database, lines: SchemaLines.all).migrate()
                return try await DevToken.ensure(file: tokenFile, tokens: AppTokens(database: queue.database))
            }

            let blobs = try settings.blobStore()
            var workerConfiguration = WorkerConfiguration()
            workerConfiguration.version = AtelierVersion.current
            workerConfiguration.chores = AppChores.all
            workerConfiguration.concurrency = try concurrency ?? settings.int("ATELIER_WORKER_CONCURRENCY") ?? 4
            let handlers = HandlerRegistry(try BuiltInKinds.handlers(blobs: blobs, settings: settings))
            let workers: [any Service]
            let workerText: String
            if let processes, processes > 0 {
                guard processes <= 256 else { throw QueueError.invalidArgument("--processes must be between 1 and 256") }
                var arguments = ["work", "--processes", "1", "--concurrency", String(workerConfiguration.concurrency)]
                if let flag = database.databaseURL { arguments += ["--database-url", flag] }
                workers = [Supervisor(executable: WorkCommand.executableURL, arguments: arguments, processes: processes, logger: logger)]
                workerText = "\(processes) worker process(es) × \(workerConfiguration.concurrency)"
            } else {
                let workerQueue = JobQueue(url: url, applicationName: "atelier-worker",
                                           maxConnections: workerConfiguration.concurrency + 4,
                                           fairShare: try settings.fairShare(), logger: logger)
                let worker = try Worker(queue: workerQueue, handlers: handlers, configuration: workerConfiguration, logger: logger,
                                        blobs: blobs)
                workers = [BackgroundTask(name: "worker-pool") { await workerQueue.run() }, worker]
                workerText = "an in-process worker × \(workerConfiguration.concurrency)"
            }

            let apiQueue = JobQueue(url: url, applicationName: "atelier-api", maxConnections: 16,
                                    fairShare: try settings.fairShare(), logger: logger)
            let server = try APIServer(configuration: configuration, queue: apiQueue, kinds: try BuiltInKinds.catalog(settings: settings),
                                       blobs: blobs, encoder: try settings.embeddingModel(), logger: logger, apps: ServedApps.all)
            server.announce()
            let base = configuration.baseURL
            // The token goes to a terminal only: a log file (./ops/run --detach) may be read by others.
            let shown = isatty(STDOUT_FILENO) == 1 ? "\(token)   (kept in \(tokenFile))" : "kept in \(tokenFile)"
            let app = try server.makeApplication(services: workers) { _ in
                FileHandle.standardOutput.write(Data("""

                    Atelier is running: the API and \(workerText). Ctrl-C stops it.
                      API:    \(base)
                      token:  \(shown)
                      try:    curl -H "X-App-Token: $(cat \(tokenFile))" \(base)/v1/jobs
                      docs:   \(base)/openapi.yaml · README.md "HTTP API"
                      console: \(base)/admin (a user with the admin role: atelier users create --role admin)

                    """.utf8))
            }
            try await app.runService()
        } catch {
            throw fail(error)
        }
    }
}

/// The development token: reused from its file while valid, else created and saved (0600).
enum DevToken {
    static func ensure(file: String, tokens: AppTokens) async throws -> String {
        if let saved = try? String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           !saved.isEmpty, try await tokens.authenticate(saved) != nil {
            return saved
        }
        let name = "dev-\(UUID().uuidString.prefix(8).lowercased())"
        let created = try await tokens.create(name: name, owner: "dev")
        let url = URL(fileURLWithPath: file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: file, contents: Data((created.secret + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("could not write the development token to \(file)")
        }
        return created.secret
    }
}
