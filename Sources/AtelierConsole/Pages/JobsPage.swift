import AtelierAPI
import AtelierQueue
import Foundation
import Hummingbird

/// `GET /admin/jobs`: jobs newest first, filtered by kind, state, owner and creation time, or
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
        if let kind = text("kind") { query.kinds = [try Self.bounded(kind, "kind")] }
        if let state = text("state") {
            guard let value = JobState(rawValue: state) else {
                throw ConsoleError.badRequest("state must be one of \(JobState.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            query.states = [value]
        }
        if let owner = text("owner") { query.owner = try Self.bounded(owner, "owner") }
        if let search = text("q") { query.search = try Self.bounded(search, "the search") }
        query.createdAfter = try text("since").map { try Self.time($0, "since") }
        query.createdBefore = try text("until").map { try Self.time($0, "until") }
        if let cursor = text("before") { query.before = try Self.cursor(cursor) }
        let page = try await queue.browse(query)

        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        var body = filterForm(text)
        body += "<div class=\"scroll\" tabindex=\"0\"><table id=\"jobs-table\" data-first-page=\"\(query.before == nil && query.search == nil && query.createdBefore == nil)\">"
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
        return ConsolePage.render(title: "Jobs", section: .jobs, csrf: csrf, live: "jobs", body: body)
    }

    private func filterItems(_ text: @escaping (String) -> String?) -> [(String, String?)] {
        ["kind", "state", "owner", "since", "until", "q"].map { ($0, text($0)) }
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
            <label>Owner <input name="owner" value="\(value("owner"))" autocomplete="off"></label>
            <label>Created since (UTC) <input type="datetime-local" name="since" value="\(value("since"))" step="1"></label>
            <label>Created before (UTC) <input type="datetime-local" name="until" value="\(value("until"))" step="1"></label>
            <button type="submit">Filter</button> <a href="/admin/jobs">Clear</a>
            </form>
            """
    }

    static func bounded(_ value: String, _ name: String) throws -> String {
        guard value.utf8.count <= 200, !value.contains("\u{0}") else { throw ConsoleError.badRequest("\(name) is too long or holds a NUL character.") }
        return value
    }

    /// `2026-11-25T10:00`, `…:00:00` (the form's local time, read as UTC) or full ISO 8601.
    static func time(_ text: String, _ name: String) throws -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        for suffix in [":00Z", "Z"] {
            if let date = try? Date(text + suffix, strategy: .iso8601) { return date }
        }
        throw ConsoleError.badRequest("\(name) must be a date and time such as 2026-11-25T10:00 (UTC).")
    }

    /// The last job id of the previous page, as the Older link writes it.
    static func cursor(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw ConsoleError.badRequest("The page link is not valid; start again from the newest jobs.")
        }
        return id
    }
}
