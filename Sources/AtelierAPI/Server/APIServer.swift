import AtelierAccounts
import AtelierDatabase
import AtelierEmbeddings
import AtelierQueue
import AtelierSearch
import AtelierStorage
import Foundation
import Hummingbird
import NIOCore
import Logging
import ServiceLifecycle
import Synchronization

/// `atelier serve`: the HTTP front. Owns the pieces one API process shares — the connection
/// pool, the one LISTEN connection (job events for SSE and the job cache, token revocations),
/// the blob store, the URL signer and download links, and the metrics — and builds the router:
///
/// - public: `/health`, `/metrics`, `/openapi.yaml`, signed `/results/…`;
/// - authenticated, rate-limited: `/v1/jobs…`, `/v1/search`, `/v1/documents…`; `/v1/admin/…` for
///   users with the `admin` role;
/// - the apps' facades the executable adds (``APIApp``: AtelierApps' caption route and Mondrian's
///   root routes), with the same shared parts.
package final class APIServer: Sendable {
    package let configuration: APIConfiguration
    package let queue: JobQueue
    package let notifier: Notifier
    package let blobs: any BlobStore
    package let signer: URLSigner
    /// Where clients download results: pre-signed on the object store (s3), or `/results/…` here.
    package let links: DownloadLinks
    package let metrics: APIMetrics
    package let publicBase: PublicBaseURL
    package let authenticator: Authenticator
    /// Users and their tokens (nil without `ATELIER_JWT_SECRET`).
    package let accounts: UserAccounts?
    let cache: JobViewCache
    package let hub: EventHub
    package let kinds: JobKindCatalog
    package let logger: Logger
    /// The embedding model for search and indexing (nil: search answers 503 naming ATELIER_MODEL_DIR).
    package let encoder: MiniLMEncoder?
    /// The one way jobs are made (``JobIntake``), for every route that makes them.
    package let intake: JobIntake
    /// The bounded lanes of this process's costly request work (``ServerLanes``).
    package let lanes: ServerLanes
    /// Search by meaning, for every route that offers it.
    package let search: SearchService
    /// How often one may try to sign in, for every sign-in route (`ATELIER_LOGIN_RATE_LIMIT…`).
    package let loginLimits: LoginLimits
    /// `ATELIER_RATE_LIMIT`, one budget per caller across the routes it guards (nil: off).
    package let limiter: RateLimiter?
    /// Runs the bulk actions the admin API and the console start.
    package let bulkActions: BulkActionStarter
    /// The apps' facades served beside the core API.
    let apps: [any APIApp]
    /// Listen address index → the port it is bound to.
    private let bound = Mutex<[Int: Int]>([:])

    /// The core API for an embedder: the job routes of `kinds`, accounts when
    /// `configuration.jwtSecret` is set, results from `blobs` (a local directory by default).
    /// Search needs the embedding model, which only the `atelier` executable wires in: here it
    /// answers 503.
    package convenience init(configuration: APIConfiguration, queue: JobQueue, kinds: JobKindCatalog,
                            blobs: (any BlobStore)? = nil, logger: Logger) throws {
        try self.init(configuration: configuration, queue: queue, kinds: kinds, blobs: blobs, encoder: nil, logger: logger, apps: [])
    }

    /// A server with the embedding model (search, indexing) that also serves `apps` (the
    /// executable passes AtelierApps' facades).
    package init(configuration: APIConfiguration, queue: JobQueue, kinds: JobKindCatalog,
                 blobs: (any BlobStore)? = nil, encoder: MiniLMEncoder? = nil, logger: Logger, apps: [any APIApp]) throws {
        try Self.checkAnonymousApps(configuration.anonymousApps, offered: apps)
        guard configuration.lanes.fitsLaneThreads else {
            throw ConfigurationError("ATELIER_LANE_PROBES, _PASSWORDS and _EMBEDDINGS may have at most "
                + "\(ServerLanes.threadCapacity) places together (the lanes' threads)")
        }
        let lanes = ServerLanes(configuration.lanes)
        self.lanes = lanes
        self.apps = apps
        self.configuration = configuration
        self.encoder = encoder
        self.queue = queue
        self.kinds = kinds
        self.logger = logger
        self.blobs = try blobs ?? LocalBlobStore(root: configuration.blobDirectory)
        self.signer = try URLSigner(secret: configuration.signingSecret, lifetime: configuration.resultURLLifetime)
        self.links = DownloadLinks(signer: signer, blobs: self.blobs)
        self.bulkActions = BulkActionStarter(queue: queue, blobs: self.blobs, logger: logger)
        let notifier = Notifier(url: queue.url, channels: [Notifier.Channel.jobEvents, Notifier.Channel.tokens],
                                logger: logger)
        self.notifier = notifier
        self.metrics = APIMetrics()
        self.publicBase = PublicBaseURL(configuration.baseURL, publicURL: configuration.publicURL, trusted: configuration.trustedHosts)
        let accounts = try configuration.jwtSecret.map {
            try UserAccounts(secret: $0, lifetime: configuration.accessTokenLifetime, queue: queue, notifier: notifier,
                             passwords: lanes.passwords,
                             apple: configuration.appleAudiences.isEmpty ? nil
                                 : AppleSignIn(audiences: configuration.appleAudiences, keys: AppleKeys(source: .init(configuration.appleKeys))),
                             refreshReuseWindow: configuration.refreshReuseWindow, sessionMaxAge: configuration.sessionMaxAge)
        }
        self.accounts = accounts
        self.authenticator = Authenticator(
            tokens: AppTokens(database: queue.database), notifier: notifier, openAccess: configuration.openAccess,
            addressLimiter: configuration.unauthenticatedRateLimitPerMinute > 0
                ? RateLimiter(perMinute: configuration.unauthenticatedRateLimitPerMinute) : nil,
            accounts: accounts, anonymousApps: configuration.anonymousApps,
            anonymousLimiter: configuration.anonymousRateLimitPerMinute > 0
                ? RateLimiter(perMinute: configuration.anonymousRateLimitPerMinute) : nil)
        self.cache = JobViewCache(notifier: notifier)
        self.intake = JobIntake(queue: queue, blobs: self.blobs, kinds: kinds, imageLimits: configuration.imageLimits, probes: lanes.probes,
                                quotas: OwnerQuotas(maxActiveJobs: configuration.maxActiveJobsPerOwner,
                                                    maxStoredBytes: configuration.maxStoredBytesPerOwner))
        self.search = SearchService(encoder: encoder, store: VectorStore(database: queue.database, logger: logger),
                                    embeddings: lanes.embeddings)
        self.loginLimits = LoginLimits(perAddress: configuration.loginRateLimitPerAddress, perEmail: configuration.loginRateLimitPerEmail)
        self.limiter = configuration.rateLimitPerMinute > 0 ? RateLimiter(perMinute: configuration.rateLimitPerMinute) : nil
        self.hub = EventHub(notifier: notifier, limits: .init(streams: configuration.maxStreams,
                                                              streamsPerOwner: configuration.maxStreamsPerOwner))
    }

    /// The router with every route and middleware.
    package func makeRouter() throws -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger, accessLog: configuration.accessLog, metrics: metrics,
                                                   proxies: configuration.trustedProxies))
        router.add(middleware: DatabaseOutageMiddleware(notifier: notifier))

        HealthController(queue: queue, blobs: blobs, notifier: notifier, version: configuration.version).register(on: router)
        MetricsController(metrics: metrics, queue: queue, lanes: lanes).register(on: router)
        OpenAPIController(base: publicBase, kinds: kinds).register(on: router)

        let results = router.group()
        if let limiter { results.add(middleware: RateLimitMiddleware(limiter: limiter)) }
        ResultsController(blobs: blobs, signer: signer).register(on: results)
        VariantsController(blobs: blobs, signer: signer, queue: queue, waiter: JobCompletionWaiter(queue: queue, hub: hub),
                           wait: configuration.variantWait, limits: configuration.imageLimits,
                           memory: VariantMemoryCache(capacity: configuration.variantMemoryBytes)).register(on: results)

        // The Caricature app's routes are the core jobs API: listed as `caricature`, they too
        // serve requests without a credential; search, documents and admin never do.
        let jobs = authenticatedGroup(router.group("v1"), app: Self.caricature)
        JobsController(queue: queue, intake: intake, cache: cache, hub: hub,
                       links: links, configuration: configuration, base: publicBase).register(on: jobs)
        let v1 = authenticatedGroup(router.group("v1"))
        SearchController<SearchHit>(service: search, queue: queue, signer: signer, base: publicBase).register(on: v1)
        DocumentsController(intake: intake, documents: DocumentStore(database: queue.database, logger: logger), searchService: search).register(on: v1)
        let admin = authenticatedGroup(router.group("v1/admin"))
        admin.add(middleware: RoleMiddleware(role: "admin"))
        AdminController(queue: queue).register(on: admin)
        LimitsController(queue: queue, kinds: kinds).register(on: admin)
        BulkActionsController(queue: queue, starter: bulkActions).register(on: admin)

        for app in apps { try app.register(on: router, server: self) }
        router.add(middleware: MethodNotAllowedMiddleware(
            routes: router.routes.map { ($0.path.description, $0.method.rawValue) },
            ownAnswers: apps.reduce(into: [:]) { answers, app in answers.merge(app.ownMethodNotAllowed) { first, _ in first } }))
        return router
    }

    /// `group` behind authentication, then the rate limit: the limit is keyed on the proven
    /// token, never on one that was only presented (unproven requests are limited per address
    /// inside AuthMiddleware). The same budget as every other authenticated route. `app` names
    /// the app whose routes these are (``APIApp/anonymousName``): listed in
    /// `ATELIER_ANONYMOUS_APPS`, they serve requests without a credential too.
    package func authenticatedGroup(_ group: RouterGroup<APIRequestContext>, app: String? = nil) -> RouterGroup<APIRequestContext> {
        group.add(middleware: AuthMiddleware(authenticator: authenticator, app: app))
        if let limiter { group.add(middleware: RateLimitMiddleware(limiter: limiter)) }
        return group
    }

    /// The application and the background services it needs (pool, listener, SSE ticks), plus
    /// `services` (`atelier dev` adds a worker). On shutdown the HTTP servers stop first, then
    /// the services in reverse order.
    ///
    /// Hummingbird binds one address per application: with several listen addresses
    /// (`ATELIER_LISTEN=0.0.0.0:5005,0.0.0.0:5400`) the first application carries the background
    /// services once, and one more application per further address — the same responder, no
    /// services of its own — runs among them, listed last so it stops first. `onServerRunning` is
    /// called for the first address; ``boundPort(_:)`` tells where each one listens.
    package func makeApplication(
        services: [any Service] = [],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        var background: [any Service] = [
            BackgroundTask(name: "postgres-pool") { [queue] in await queue.run() },
            BackgroundTask(name: "listener") { [notifier] in await notifier.run() },
            BackgroundTask(name: "sse-keepalive") { [hub, configuration] in await hub.runTicks(every: configuration.sseKeepAlive) },
            BackgroundTask(name: "stream-revoker") { [queue, notifier, hub, logger, accounts] in
                await StreamRevoker(tokens: AppTokens(database: queue.database), accounts: accounts, notifier: notifier, hub: hub, logger: logger).run()
            },
            BackgroundTask(name: "bulk-actions") { [bulkActions] in await bulkActions.tasks.run() },
        ]
        background += services
        let responder = OwnTaskResponder(inner: try makeRouter().buildResponder(), inOwnTask: Self.mayStream)
        for index in configuration.listen.indices.dropFirst() {
            background.append(listener(index, responder: responder, services: []) { _ in })
        }
        let (configuration, publicBase) = (self.configuration, self.publicBase)
        return listener(0, responder: responder, services: background) { channel in
            if configuration.publicURL == nil, configuration.port == 0, let port = channel.localAddress?.port {
                var bound = configuration
                bound.port = port
                publicBase.set(bound.baseURL)
            }
            await onServerRunning(channel)
        }
    }

    /// The application serving `responder` on the `index`th listen address, with `services`.
    private func listener<Responder: HTTPResponder>(
        _ index: Int, responder: Responder, services: [any Service],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) -> Application<Responder> where Responder.Context == APIRequestContext {
        let address = configuration.listen[index]
        // Outbound parts pass these handlers last to first: ExpectContinueHandler may add
        // `Connection: close`, which ClosingAnswerHandler, before it here, then acts on.
        return Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [ReceiveBufferSizing(), ClosingAnswerHandler(), ExpectContinueHandler()],
                                                idleTimeout: TimeAmount(configuration.httpIdleTimeout))),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "atelier"),
            services: services,
            onServerRunning: { [self] channel in
                bound.withLock { $0[index] = channel.localAddress?.port }
                await onServerRunning(channel)
            },
            logger: logger)
    }

    /// The port the `index`th listen address is bound to, once it is (port 0 picks one).
    package func boundPort(_ index: Int) -> Int? {
        bound.withLock { $0[index] }
    }

    /// Paths whose answer may be a long-lived event stream (``OwnTaskResponder``).
    static func mayStream(_ path: String) -> Bool {
        path.hasSuffix("/events") || path.hasPrefix("/stream/")
    }

    /// `ATELIER_ANONYMOUS_APPS` may list only apps this server serves and that may go without a
    /// credential: anything else is a start-up error naming the valid names.
    static func checkAnonymousApps(_ listed: Set<String>, offered apps: [any APIApp]) throws {
        let valid = ([caricature] + apps.compactMap(\.anonymousName)).sorted()
        for name in listed.sorted() where !valid.contains(name) {
            throw ConfigurationError("ATELIER_ANONYMOUS_APPS lists '\(name)', which is not an app that can be served without a credential: "
                + "the valid names are \(valid.joined(separator: ", ")) (caricature opens /v1/jobs; the rest of /v1 always needs one)")
        }
    }

    /// The Caricature app's name in `ATELIER_ANONYMOUS_APPS`: its routes are `/v1/jobs…`.
    static let caricature = "caricature"

    /// Warns loudly when open access or anonymous apps are on: anyone who can reach the port can
    /// use the API, or those apps' routes.
    package func announce() {
        let listening = configuration.listen.map(\.description).joined(separator: ", ")
        if !configuration.anonymousApps.isEmpty {
            let apps = configuration.anonymousApps.sorted()
            logger.warning("""
                ANONYMOUS APPS ARE ON (ATELIER_ANONYMOUS_APPS=\(apps.joined(separator: ","))): requests without a token to \
                \(apps.joined(separator: " and "))'s routes are served, as \(apps.map { "'anonymous:\($0)'" }.joined(separator: ", ")), \
                limited to \(configuration.anonymousRateLimitPerMinute) per minute per address (0: no limit). Anyone who can reach \
                \(listening) can create those apps' jobs and read their anonymous ones. Use this on a trusted LAN only.
                """)
        }
        if configuration.openAccess {
            logger.warning("""
                OPEN ACCESS IS ON (ATELIER_OPEN_ACCESS=true): requests without a token are accepted as 'anonymous'. \
                Anyone who can reach \(listening) can create jobs and read anonymous ones. Use this on a trusted LAN only.
                """)
        }
        logger.info("atelier API listening", metadata: [
            "url": .string(configuration.baseURL), "listen": .string(listening),
            "trusted_hosts": .string(configuration.trustedHosts.entries.map(\.description).joined(separator: ",")), "data_dir": .string(configuration.dataDirectory.path),
            "kinds": .string(kinds.names.joined(separator: ","))])
    }
}

/// A long-running task as a ServiceLifecycle service: cancelled on graceful shutdown, after the
/// HTTP server (listed later) has stopped.
package struct BackgroundTask: Service {
    let name: String
    let body: @Sendable () async -> Void

    package init(name: String, _ body: @escaping @Sendable () async -> Void) {
        self.name = name
        self.body = body
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }
}
