import AtelierAPI
import AtelierQueue
import Foundation
import Hummingbird

/// `GET /admin/queues`: every queue with its depth, a pause or resume button, the limits per kind
/// (``LimitsSection``), the cron schedules with their next and last runs (`atelier schedules`),
/// and the audit log of operators' actions
/// (who paused what, when — from the console or the CLI).
/// `POST /admin/queues/{name}/pause|resume` does it (CSRF-checked) and records who did.
struct QueuesPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions
    let kinds: JobKindCatalog

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        async let queues = queue.queues()
        async let stats = queue.stats(minutes: 1)
        async let audit = queue.auditLog(limit: 100)
        async let schedules = queue.schedules.list()
        async let limits = queue.limits.list()
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        let depths = Dictionary((try await stats).queues.map { ($0.queue, $0) }, uniquingKeysWith: { first, _ in first })
        var body = "<p class=\"muted\">A paused queue keeps accepting jobs; workers claim none of them until it is resumed. Running jobs finish.</p>"
        let list = try await queues
        if list.isEmpty {
            body += "<p>No queue yet: queues appear with their first job.</p>"
        } else {
            body += "<div class=\"scroll\" tabindex=\"0\"><table id=\"queues-table\"><thead><tr><th scope=\"col\">Queue</th><th scope=\"col\">State</th>"
                + "<th scope=\"col\">Action</th><th scope=\"col\" class=\"num\">Ready</th><th scope=\"col\" class=\"num\">Scheduled</th>"
                + "<th scope=\"col\" class=\"num\">Running</th></tr></thead><tbody>"
            for info in list {
                let depth = depths[info.name]
                let action = info.paused ? "resume" : "pause"
                let path = "/admin/queues/\(Self.pathComponent(info.name))/\(action)"
                body += "<tr><th scope=\"row\">\(h(info.name))</th>"
                    + "<td>\(info.paused ? "<span class=\"badge paused\">paused</span>" : "<span class=\"badge live\">active</span>")</td>"
                    + "<td><form method=\"post\" action=\"\(h(path))\"><input type=\"hidden\" name=\"csrf\" value=\"\(h(csrf))\">"
                    + "<button type=\"submit\" aria-label=\"\(info.paused ? "Resume" : "Pause") queue \(h(info.name))\">\(info.paused ? "Resume" : "Pause")</button></form></td>"
                    + "<td class=\"num\">\(depth?.ready ?? 0)</td><td class=\"num\">\(depth?.scheduled ?? 0)</td><td class=\"num\">\(depth?.running ?? 0)</td></tr>"
            }
            body += "</tbody></table></div>"
        }
        body += LimitsSection.render(try await limits, kinds: kinds.names, csrf: csrf)
        body += Self.schedulesSection(try await schedules)
        body += "<section aria-labelledby=\"audit-title\"><h2 id=\"audit-title\">Audit log</h2>"
        let entries = try await audit
        body += entries.isEmpty ? "<p>No operator action yet.</p>" : AuditTable.render(entries)
        body += "</section>"
        return ConsolePage.render(title: "Queues", section: .queues, csrf: csrf, body: body)
    }

    func change(_ request: Request, _ context: APIRequestContext, users: (@Sendable (Principal) async -> String)) async throws -> Response {
        // The router hands the path segment over as sent: the page percent-encodes names (a queue
        // may be called anything up to 64 characters, spaces and slashes included).
        guard let name = context.parameters.get("name")?.removingPercentEncoding, !name.isEmpty, name.utf8.count <= 200,
              !name.contains("\u{0}") else {
            throw ConsoleError.badRequest("That is not a queue name.")
        }
        let actor = await users(try context.requirePrincipal())
        switch context.parameters.get("action") {
        case "pause": try await queue.pause(queue: name, actor: actor)
        case "resume": try await queue.resume(queue: name, actor: actor)
        default: throw ConsoleError(status: .notFound, title: "No such action", message: "A queue can be paused or resumed.")
        }
        return ConsolePage.redirect(to: "/admin/queues")
    }

    /// The schedules, each with its next run (none while paused) and its last run, linked to the
    /// job that run enqueued. Times are UTC, as the cron expressions are.
    static func schedulesSection(_ schedules: [Schedule]) -> String {
        var html = "<section aria-labelledby=\"schedules-title\"><h2 id=\"schedules-title\">Schedules</h2>"
        guard !schedules.isEmpty else {
            return html + "<p>No schedule: <code>atelier schedules add</code> makes one.</p></section>"
        }
        html += "<div class=\"scroll\" tabindex=\"0\"><table id=\"schedules-table\"><thead><tr><th scope=\"col\">Schedule</th>"
            + "<th scope=\"col\">Cron (UTC)</th><th scope=\"col\">Kind</th><th scope=\"col\">Queue</th><th scope=\"col\">State</th>"
            + "<th scope=\"col\">Next run</th><th scope=\"col\">Last run</th></tr></thead><tbody>"
        for schedule in schedules {
            var last = Format.timeTag(schedule.lastTick)
            if let id = schedule.lastJobID {
                last += " <a href=\"/admin/jobs/\(id.uuidString.lowercased())\" class=\"mono\">job \(Format.shortID(id))</a>"
            }
            html += "<tr id=\"schedule-\(h(schedule.name))\"><th scope=\"row\">\(h(schedule.name))</th><td class=\"mono\">\(h(schedule.cron))</td>"
                + "<td>\(h(schedule.kind))</td><td>\(h(schedule.queue))</td>"
                + "<td>\(schedule.paused ? "<span class=\"badge paused\">paused</span>" : "<span class=\"badge live\">active</span>")</td>"
                + "<td>\(schedule.paused ? "—" : Format.timeTag(schedule.nextTick))</td><td>\(last)</td></tr>"
        }
        return html + "</tbody></table></div></section>"
    }

    static func pathComponent(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? name
    }
}
