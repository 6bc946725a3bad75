import ArgumentParser
import AtelierAPI
import AtelierApps
import AtelierDatabase
import AtelierQueue
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP API. SIGTERM/SIGINT stop accepting, finish in-flight requests, exit 0.",
        discussion: """
            Environment: ATELIER_LISTEN (127.0.0.1:8080; several, comma-separated), ATELIER_PUBLIC_URL, ATELIER_TRUSTED_HOSTS
            (Hosts whose requests get URLs on their own Host), ATELIER_DATA_DIR, ATELIER_BLOB_STORE (local | s3,
            with ATELIER_S3_*), ATELIER_SIGNING_SECRET
            (required), ATELIER_RESULT_URL_TTL (1h), ATELIER_MAX_UPLOAD_BYTES (25 MiB), ATELIER_RATE_LIMIT (1200/min per
            client, 0 = off), ATELIER_OPEN_ACCESS (false), ATELIER_ANONYMOUS_APPS (none; mondrian, caption: those apps'
            routes without a token), ATELIER_ANONYMOUS_RATE_LIMIT (120/min per address), ATELIER_SSE_KEEPALIVE (15s),
            ATELIER_ACCESS_LOG (true), ATELIER_STARTUP_WAIT (0: how long to wait for the database, its schema and the
            blob store at start), ATELIER_LOG_FORMAT (text | json: JSON lines on standard output).
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "host:port to listen on, or several, comma-separated (default: $ATELIER_LISTEN or 127.0.0.1:8080).")
    var listen: String?
    @Option(name: .customLong("public-url"), help: "Base of absolute URLs handed out (default: $ATELIER_PUBLIC_URL or http://LISTEN).")
    var publicURL: String?
    @Flag(name: .customLong("open-access"), help: "Accept requests without a token (LAN demos only).") var openAccess = false

    func run() async throws {
        let settings = Settings()
        do {
            try settings.bootstrapLogging(fallback: .info, service: true)
            let logger = Logger(label: "atelier.api")
            let configuration = try settings.apiConfiguration(listen: listen, publicURL: publicURL, openAccess: openAccess)
            let url = try settings.databaseURL(flag: database.databaseURL)
            let wait = try StartupWait(settings: settings, logger: logger)
            try await wait.retrying("the database") { try await JobQueue.checkReachable(url, logger: logger) }
            let queue = JobQueue(url: url, applicationName: "atelier-api", maxConnections: 16,
                                 fairShare: try settings.fairShare(), logger: logger)
            let server = try APIServer(configuration: configuration, queue: queue, kinds: try BuiltInKinds.catalog(settings: settings),
                                       blobs: try settings.blobStore(), encoder: try settings.embeddingModel(), logger: logger,
                                       apps: ServedApps.all)
            try await wait.retrying("the database schema") { try await APIRunner.requireSchema(url: url, logger: logger) }
            if wait.limit > .zero { try await wait.retrying("the blob store") { try await server.blobs.check() } }
            server.announce()
            let app = try server.makeApplication()
            // A stop that waits for good is no stop: after `ATELIER_SHUTDOWN_GRACE` the requests
            // and streams still open are cancelled (a client resumes a stream elsewhere with
            // Last-Event-ID), and a task that ignores its cancellation for 5 s more ends the
            // process.
            var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            group.maximumGracefulShutdownDuration = try settings.duration("ATELIER_SHUTDOWN_GRACE") ?? .seconds(20)
            group.maximumCancellationDuration = .seconds(5)
            try await ServiceGroup(configuration: group).run()
        } catch {
            throw fail(error)
        }
    }
}

enum APIRunner {
    /// Refuses to serve against a database whose schema does not match this build.
    static func requireSchema(url: DatabaseURL, logger: Logger) async throws {
        var quiet = logger
        quiet.logLevel = .error
        try await JobQueue.withQueue(url: url, applicationName: "atelier-api-check", maxConnections: 1, logger: quiet) { queue in
            try await Migrator.requireCurrent(database: queue.database, lines: SchemaLines.all)
        }
    }
}
