import AtelierAPI
import AtelierAccounts
import Foundation
import Hummingbird

/// The operator console, `/admin`, served by `atelier serve` itself: HTML pages written on the
/// server (their stylesheet and script built into the binary, nothing from elsewhere), for users
/// with the admin role signed in with their email and password (``ConsoleSessions``).
///
/// - `GET /admin/login`, `POST /admin/login`, `POST /admin/logout` — ``SignInPage``
/// - `GET /admin` — ``OverviewPage``; `GET /admin/live[?show=newest|<job id>]` — live updates (``ConsoleFeed``)
/// - `GET /admin/jobs` — ``JobsPage``; `GET /admin/jobs/{id}` — ``JobPage``
/// - `GET|POST /admin/jobs/{id}/retry|cancel|purge` — ``JobActionsPage``
/// - `GET|POST /admin/bulk/cancel|retry|purge`, `GET /admin/bulk-actions[/{id}]`,
///   `POST /admin/bulk-actions/{id}/stop` — ``BulkActionsPage``
/// - `GET /admin/workers` — ``WorkersPage``
/// - `GET /admin/queues`, `POST /admin/queues/{name}/pause|resume` — ``QueuesPage``
/// - `POST /admin/limits`, `POST /admin/limits/{kind}/clear` — ``LimitsSection`` (on the Queues page)
/// - `GET /admin/assets/{name}` — ``AssetsRoute``
package struct ConsoleApp: APIApp {
    package init() {}

    package func register(on router: Router<APIRequestContext>, server: APIServer) throws {
        let configuration = server.configuration
        let sessions = ConsoleSessions(accounts: server.accounts, secret: configuration.jwtSecret,
                                       secureCookies: server.publicBase.configured.lowercased().hasPrefix("https://"),
                                       proxies: server.configuration.trustedProxies)
        let lifetime = Int(configuration.accessTokenLifetime.components.seconds)
        let feed = ConsoleFeed(queue: server.queue, notifier: server.notifier, logger: server.logger)
        let signIn = SignInPage(sessions: sessions, limits: server.loginLimits, lifetime: lifetime)
        let overview = OverviewPage(queue: server.queue, sessions: sessions)
        let jobs = JobsPage(queue: server.queue, sessions: sessions)
        let job = JobPage(queue: server.queue, sessions: sessions, links: server.links, publicBase: server.publicBase)
        let actions = JobActionsPage(queue: server.queue, sessions: sessions, blobs: server.blobs)
        let bulk = BulkActionsPage(queue: server.queue, sessions: sessions, starter: server.bulkActions)
        let workers = WorkersPage(queue: server.queue, sessions: sessions)
        let queues = QueuesPage(queue: server.queue, sessions: sessions, kinds: server.kinds)
        let limits = LimitsSection(queue: server.queue, kinds: server.kinds)
        let assets = AssetsRoute()
        let actor = Self.actor(accounts: server.accounts)

        router.get("admin/login") { request, context in await ConsoleRoute.answer(request, context) { try await signIn.show(request, context) } }
        router.post("admin/login") { request, context in await ConsoleRoute.answer(request, context) { try await signIn.signIn(request, context) } }
        router.get("admin/assets/:name") { request, context in try await assets.serve(request, context) }

        let admin = router.group("admin")
        admin.add(middleware: ConsoleAuthMiddleware(sessions: sessions))
        admin.post("logout") { request, context in await ConsoleRoute.answer(request, context) { try await signIn.signOut(request, context) } }
        admin.get { request, context in await ConsoleRoute.answer(request, context) { try await overview.show(request, context) } }
        admin.get("live") { request, context in
            await ConsoleRoute.answer(request, context) {
                try await Self.live(request, context, sessions: sessions, feed: feed)
            }
        }
        admin.get("jobs") { request, context in await ConsoleRoute.answer(request, context) { try await jobs.show(request, context) } }
        admin.get("jobs/:id") { request, context in await ConsoleRoute.answer(request, context) { try await job.show(request, context) } }
        admin.get("jobs/:id/:action") { request, context in await ConsoleRoute.answer(request, context) { try await actions.confirm(request, context) } }
        admin.post("jobs/:id/:action") { request, context in
            await ConsoleRoute.answer(request, context) { try await actions.perform(request, context, users: actor) }
        }
        admin.get("bulk/:action") { request, context in await ConsoleRoute.answer(request, context) { try await bulk.confirm(request, context) } }
        admin.post("bulk/:action") { request, context in
            await ConsoleRoute.answer(request, context) { try await bulk.start(request, context, users: actor) }
        }
        admin.get("bulk-actions") { request, context in await ConsoleRoute.answer(request, context) { try await bulk.list(request, context) } }
        admin.get("bulk-actions/:id") { request, context in await ConsoleRoute.answer(request, context) { try await bulk.show(request, context) } }
        admin.post("bulk-actions/:id/stop") { request, context in
            await ConsoleRoute.answer(request, context) { try await bulk.stop(request, context, users: actor) }
        }
        admin.get("workers") { request, context in await ConsoleRoute.answer(request, context) { try await workers.show(request, context) } }
        admin.get("queues") { request, context in await ConsoleRoute.answer(request, context) { try await queues.show(request, context) } }
        admin.post("queues/:name/:action") { request, context in
            await ConsoleRoute.answer(request, context) { try await queues.change(request, context, users: actor) }
        }
        admin.post("limits") { request, context in
            await ConsoleRoute.answer(request, context) { try await limits.save(request, context, users: actor) }
        }
        admin.post("limits/:kind/clear") { request, context in
            await ConsoleRoute.answer(request, context) { try await limits.clear(request, context, users: actor) }
        }
    }

    /// The live stream lasts as long as the session: its token unexpired, not signed out, its
    /// operator not disabled (the accounts' revocations, in memory).
    private static func live(_ request: Request, _ context: APIRequestContext, sessions: ConsoleSessions, feed: ConsoleFeed) async throws -> Response {
        guard let accounts = sessions.accounts, let token = request.cookies[ConsoleSessions.cookieName]?.value,
              (try? await accounts.verify(token, audiences: [.console])) != nil else { throw ConsoleError.notSignedIn }
        let show = request.uri.queryParameters["show"].map(String.init)
        return try feed.response(signedIn: { (try? await accounts.verify(token, audiences: [.console])) != nil },
                                 opening: ConsoleFeed.Opening(show: show))
    }

    /// Who an operator is in the audit log: `user:<id> <email>`.
    static func actor(accounts: UserAccounts?) -> @Sendable (Principal) async -> String {
        { principal in
            guard let id = principal.userID, let user = try? await accounts?.users.find(id: id), let email = user.email else {
                return principal.owner
            }
            return "\(principal.owner) \(email)"
        }
    }
}
