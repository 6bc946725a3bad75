import AtelierAPI
import AtelierQueue
import Foundation
import HTTPTypes
import Hummingbird

/// Cancel, retry or purge every job a filter matches (the Jobs page's "all matching" links):
///
/// - `GET /admin/bulk/{action}?<the Jobs page's filter>` counts the jobs it would act on now and
///   shows a few (a dry run: nothing changes), with one button to confirm;
/// - `POST /admin/bulk/{action}` (the session's CSRF token, the same filter) starts it in batches
///   (``BulkActionStarter``) and goes to its progress page;
/// - `GET /admin/bulk-actions` lists the actions, `GET /admin/bulk-actions/{id}` shows one (the page
///   reloads every two seconds while it runs), `POST /admin/bulk-actions/{id}/stop` stops it.
struct BulkActionsPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions
    let starter: BulkActionStarter

    func confirm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let action = try Self.action(context)
        let text = Self.fields(request.uri.queryParameters.map { (String($0.key), String($0.value)) })
        let criteria = try JobsPage.criteria(text)
        let preview = try await queue.bulkActions.preview(action, criteria)
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        let title = "\(action.rawValue.capitalized) all matching jobs?"
        var body = "<p>Filter: <span class=\"mono\">\(h(criteria.text))</span></p>"
        guard preview.count > 0 else {
            body += "<p id=\"bulk-count\" data-count=\"0\">No job matches that the action applies to (\(Self.appliesTo(action))). Nothing to do.</p>"
                + "<p><a href=\"/admin/jobs\(h(HTML.query(Self.jobsItems(text))))\">Back to the jobs</a></p>"
            return ConsolePage.render(title: title, section: .jobs, csrf: csrf, body: body)
        }
        body += """
            <p id="bulk-count" data-count="\(preview.count)"><strong>\(preview.count)</strong> job(s) match and are \(Self.appliesTo(action)).</p>
            <p>\(Self.consequence(action))</p>
            <form method="post" action="/admin/bulk/\(action.rawValue)" class="confirm">
            <input type="hidden" name="csrf" value="\(h(csrf))">
            """
        for (name, value) in Self.jobsItems(text) {
            if let value { body += "<input type=\"hidden\" name=\"\(h(name))\" value=\"\(h(value))\">" }
        }
        body += """
            <button type="submit" class="\(action.rawValue)" id="confirm-bulk">\(action.rawValue.capitalized) \(preview.count) job(s)</button>
            <a href="/admin/jobs\(h(HTML.query(Self.jobsItems(text))))">Keep them as they are</a>
            </form>
            <div class="scroll" tabindex="0"><table><caption>The newest of them</caption><thead>\(JobRow.header)</thead><tbody>
            \(preview.sample.map(JobRow.render).joined())
            </tbody></table></div>
            """
        return ConsolePage.render(title: title, section: .jobs, csrf: csrf, body: body)
    }

    func start(_ request: Request, _ context: APIRequestContext, users: (@Sendable (Principal) async -> String)) async throws -> Response {
        var request = request
        let action = try Self.action(context)
        let form = try await FormBody.read(&request)
        let text = Self.fields(Self.formNames.compactMap { name in form[name].map { (name, $0) } })
        let criteria = try JobsPage.criteria(text)
        let started = try await queue.bulkActions.begin(action, criteria, actor: await users(try context.requirePrincipal()))
        starter.start(started.id)
        return ConsolePage.redirect(to: "/admin/bulk-actions/\(started.id)")
    }

    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let actions = try await queue.bulkActions.list(limit: 100)
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        var body = "<div class=\"scroll\" tabindex=\"0\"><table id=\"bulk-actions\"><caption>\(actions.isEmpty ? "No bulk action yet." : "Newest first.")</caption>"
        body += "<thead><tr><th scope=\"col\">#</th><th scope=\"col\">Action</th><th scope=\"col\">Filter</th><th scope=\"col\">By</th>"
            + "<th scope=\"col\">State</th><th scope=\"col\">Done</th><th scope=\"col\">Started</th></tr></thead><tbody>"
        for action in actions {
            body += "<tr><td><a href=\"/admin/bulk-actions/\(action.id)\">\(action.id)</a></td><td>\(action.action.rawValue)</td>"
                + "<td class=\"mono\">\(h(action.filter))</td><td>\(h(action.actor))</td><td>\(action.state.rawValue)</td>"
                + "<td>\(action.acted) of \(action.matched)</td><td>\(h(Self.time(action.startedAt)))</td></tr>"
        }
        body += "</tbody></table></div>"
        return ConsolePage.render(title: "Bulk actions", section: .jobs, csrf: csrf, body: body)
    }

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let action: BulkAction
        do {
            action = try await queue.bulkActions.find(id: try Self.id(context))
        } catch QueueError.jobNotFound {
            throw Self.noSuchAction
        }
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        let percent = action.matched == 0 ? 100 : min(100, Int(action.acted * 100 / action.matched))
        var body = """
            <dl class="facts" id="bulk-action" data-state="\(action.state.rawValue)" data-acted="\(action.acted)">
            <dt>Action</dt><dd>\(action.action.rawValue)</dd>
            <dt>Filter</dt><dd class="mono">\(h(action.filter))</dd>
            <dt>Started by</dt><dd>\(h(action.actor)) at \(h(Self.time(action.startedAt)))</dd>
            <dt>State</dt><dd id="bulk-state">\(action.state.rawValue)\(action.finishedAt.map { " at " + h(Self.time($0)) } ?? "")</dd>
            <dt>\(action.action.done.capitalized)</dt><dd><span id="bulk-acted">\(action.acted)</span> of \(action.matched) matching when it began
            <progress max="100" value="\(percent)">\(percent)%</progress></dd>
            """
        if action.action == .cancel {
            body += "<dt>Running jobs told to stop</dt><dd>\(action.stopping) (each records cancelled when its worker stops it)</dd>"
        }
        body += "<dt>Batches</dt><dd>\(action.batches) of up to \(action.batchSize) jobs</dd></dl>"
        if action.state == .running {
            body += """
                <form method="post" action="/admin/bulk-actions/\(action.id)/stop" class="confirm">
                <input type="hidden" name="csrf" value="\(h(csrf))">
                <button type="submit" id="stop-bulk">Stop after this batch</button></form>
                """
        }
        body += "<p><a href=\"/admin/bulk-actions\">All bulk actions</a> · <a href=\"/admin/jobs\">Jobs</a></p>"
        var response = ConsolePage.render(title: "Bulk action \(action.id)", section: .jobs, csrf: csrf, body: body)
        if action.state == .running { response.headers[HTTPField.Name("Refresh")!] = "2" }
        return response
    }

    func stop(_ request: Request, _ context: APIRequestContext, users: (@Sendable (Principal) async -> String)) async throws -> Response {
        let id = try Self.id(context)
        do {
            try await queue.bulkActions.stop(id: id, actor: await users(try context.requirePrincipal()))
        } catch QueueError.jobNotFound {
            throw Self.noSuchAction
        }
        return ConsolePage.redirect(to: "/admin/bulk-actions/\(id)")
    }

    /// The Jobs page's filter fields (``JobsPage/criteria(_:)``).
    static let formNames = ["kind", "state", "queue", "owner", "since", "until", "error"]

    static let noSuchAction = ConsoleError(status: .notFound, title: "No such bulk action",
                                           message: "There is no bulk action with that number.")

    /// The filter fields as the Jobs page reads them: trimmed, empty ones absent; anything else ignored.
    static func fields(_ pairs: [(String, String)]) -> @Sendable (String) -> String? {
        var values: [String: String] = [:]
        for (name, value) in pairs where formNames.contains(name) {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { values[name] = trimmed }
        }
        let found = values
        return { found[$0] }
    }

    static func jobsItems(_ text: (String) -> String?) -> [(String, String?)] {
        formNames.map { ($0, text($0)) }
    }

    static func action(_ context: APIRequestContext) throws -> BulkActionKind {
        guard let text = context.parameters.get("action"), let action = BulkActionKind(rawValue: text) else {
            throw ConsoleError(status: .notFound, title: "No such action", message: "Jobs can be cancelled, retried or purged in bulk.")
        }
        return action
    }

    static func id(_ context: APIRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else { throw noSuchAction }
        return id
    }

    static func appliesTo(_ action: BulkActionKind) -> String {
        switch action {
        case .cancel: return "queued or running"
        case .retry: return "failed or cancelled"
        case .purge: return "finished"
        }
    }

    static func consequence(_ action: BulkActionKind) -> String {
        switch action {
        case .cancel: return "Queued jobs are cancelled at once; running jobs are told to stop. It runs in batches of 1,000 and can be stopped between them."
        case .retry: return "Each job is queued again with a fresh set of attempts; its error history is kept. It runs in batches of 1,000 and can be stopped between them."
        case .purge: return "Each job is deleted with its events and files. This cannot be undone. It runs in batches of 1,000 and can be stopped between them."
        }
    }

    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle()).replacingOccurrences(of: "T", with: " ")
    }
}
