import AtelierAPI
import AtelierQueue
import Foundation
import Hummingbird

/// `GET /admin/jobs`: jobs newest first, filtered (``JobCriteria``: kind, state, queue, owner,
/// creation time, error text), or
/// found by job id or request id; 50 a page, older pages by cursor (the last job id). The first page is live.
struct JobsPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let text: (String) -> String? = { name in
            parameters[name[...]].map(String.init).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces) }
        }
        var query = JobBrowseQuery()
        query.criteria = try Self.criteria(text)
        if let search = text("q") { query.search = try Self.bounded(search, "the search") }
        if let cursor = text("before") { query.before = try Self.cursor(cursor) }
        let page = try await queue.browse(query)

        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        var body = filterForm(text)
        body += "<div class=\"scroll\" tabindex=\"0\"><table id=\"jobs-table\" data-first-page=\"\(query.before == nil && query.search == nil && query.criteria.createdBefore == nil)\">"
        body += "<caption>\(page.jobs.isEmpty ? "No job matches." : "Newest first.")</caption><thead>\(JobRow.header)</thead><tbody>"
        body += page.jobs.map(JobRow.render).joined()
        body += "</tbody></table></div><nav class=\"pager\" aria-label=\"Pages\">"
        if query.before != nil {
            body += "<a href=\"/admin/jobs\(h(HTML.query(filterItems(text))))\">Newest</a>"
        }
        if page.more, let last = page.jobs.last {
            body += " <a href=\"/admin/jobs\(h(HTML.query(filterItems(text) + [("before", last.id.uuidString.lowercased())])))\" rel=\"next\">Older</a>"
        }
        body += "</nav>"
        if query.search == nil, !page.jobs.isEmpty {
            body += bulkLinks(filterItems(text))
        }
        return ConsolePage.render(title: "Jobs", section: .jobs, csrf: csrf, live: "jobs", body: body)
    }

    private func filterItems(_ text: @escaping (String) -> String?) -> [(String, String?)] {
        ["kind", "state", "queue", "owner", "since", "until", "error", "q"].map { ($0, text($0)) }
    }

    /// The form's fields as a filter (``JobCriteria``): the same names and rules as the CLI's
    /// `--where` and the admin API.
    static func criteria(_ text: (String) -> String?) throws -> JobCriteria {
        let fields = [("kind", "kind"), ("state", "state"), ("queue", "queue"), ("owner", "owner"),
                      ("created-after", "since"), ("created-before", "until"), ("error", "error")]
        return try JobCriteria(pairs: fields.compactMap { name, field in text(field).map { (name, $0) } })
    }

    /// "Act on all matching": a bulk action on every job the filter matches (``BulkActionsPage``
    /// counts them first and asks for confirmation).
    private func bulkLinks(_ items: [(String, String?)]) -> String {
        let query = HTML.query(items.filter { $0.0 != "q" })
        return """
            <section class="bulk" aria-label="Act on all matching jobs"><h2>All matching jobs</h2><p>
            <a href="/admin/bulk/cancel\(h(query))" id="bulk-cancel">Cancel all matching…</a>
            <a href="/admin/bulk/retry\(h(query))" id="bulk-retry">Retry all matching…</a>
            <a href="/admin/bulk/purge\(h(query))" id="bulk-purge">Purge all matching…</a>
            <a href="/admin/bulk-actions">Bulk actions</a></p></section>
            """
    }

    private func filterForm(_ text: @escaping (String) -> String?) -> String {
        let value: (String) -> String = { h(text($0) ?? "") }
        var states = "<option value=\"\">any</option>"
        for state in JobState.allCases {
            states += "<option\(text("state") == state.rawValue ? " selected" : "")>\(state.rawValue)</option>"
        }
        return """
            <form method="get" action="/admin/jobs" class="filters" role="search" aria-label="Filter jobs">
            <label>Job id or request id <input type="search" name="q" value="\(value("q"))" autocomplete="off"></label>
            <label>Kind <input name="kind" value="\(value("kind"))" autocomplete="off"></label>
            <label>State <select name="state">\(states)</select></label>
            <label>Queue <input name="queue" value="\(value("queue"))" autocomplete="off"></label>
            <label>Owner <input name="owner" value="\(value("owner"))" autocomplete="off"></label>
            <label>Created since (UTC) <input type="datetime-local" name="since" value="\(value("since"))" step="1"></label>
            <label>Created before (UTC) <input type="datetime-local" name="until" value="\(value("until"))" step="1"></label>
            <label>Error contains <input name="error" value="\(value("error"))" autocomplete="off"></label>
            <button type="submit">Filter</button> <a href="/admin/jobs">Clear</a>
            </form>
            """
    }

    static func bounded(_ value: String, _ name: String) throws -> String {
        guard value.utf8.count <= 200, !value.contains("\u{0}") else { throw ConsoleError.badRequest("\(name) is too long or holds a NUL character.") }
        return value
    }

    /// The last job id of the previous page, as the Older link writes it.
    static func cursor(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw ConsoleError.badRequest("The page link is not valid; start again from the newest jobs.")
        }
        return id
    }
}
