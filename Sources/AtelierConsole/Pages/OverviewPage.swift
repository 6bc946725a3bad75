import AtelierAPI
import AtelierQueue
import Hummingbird

/// `GET /admin`: the overview (``OverviewView``), kept live by the `overview` frames of
/// `/admin/live`.
struct OverviewPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        let overview = try await Overview.load(queue)
        return ConsolePage.render(title: "Overview", section: .overview, csrf: csrf, live: "overview",
                                  body: "<div id=\"overview\">" + OverviewView.render(overview) + "</div>")
    }
}
