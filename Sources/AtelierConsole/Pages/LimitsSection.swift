import AtelierAPI
import AtelierQueue
import Foundation
import Hummingbird

/// The Queues page's limits per kind (``KindLimits``): a table of the kinds that have one, each
/// with a Clear button, and a form that sets one kind's limits — what `atelier limits` and
/// `PUT /v1/admin/limits` do. `POST /admin/limits` saves the form (an empty field is no such
/// limit), `POST /admin/limits/{kind}/clear` clears; both are CSRF-checked and audited.
struct LimitsSection: Sendable {
    let queue: JobQueue
    let kinds: JobKindCatalog

    static func render(_ limits: [KindLimits], kinds: [String], csrf: String) -> String {
        var html = "<section aria-labelledby=\"limits-title\"><h2 id=\"limits-title\">Limits per kind</h2>"
            + "<p class=\"muted\">Across all workers, in force at their next claim. A job held back by a limit stays queued and spends no attempt.</p>"
        if limits.isEmpty {
            html += "<p>No limit: every kind runs as fast as the workers allow.</p>"
        } else {
            html += "<div class=\"scroll\" tabindex=\"0\"><table id=\"limits-table\"><thead><tr><th scope=\"col\">Kind</th>"
                + "<th scope=\"col\" class=\"num\">Concurrency</th><th scope=\"col\" class=\"num\">Per owner</th>"
                + "<th scope=\"col\">Rate</th><th scope=\"col\" class=\"num\">Timeout</th><th scope=\"col\">Set by</th>"
                + "<th scope=\"col\">Action</th></tr></thead><tbody>"
            for l in limits {
                let path = "/admin/limits/\(QueuesPage.pathComponent(l.kind))/clear"
                html += "<tr id=\"limits-\(h(l.kind))\"><th scope=\"row\">\(h(l.kind))</th>"
                    + "<td class=\"num\">\(l.concurrency.map(String.init) ?? "—")</td>"
                    + "<td class=\"num\">\(l.ownerConcurrency.map(String.init) ?? "—")</td>"
                    + "<td>\(l.rate.map { h($0.description) } ?? "—")</td>"
                    + "<td class=\"num\">\(l.timeout.map { Format.duration(seconds: $0.seconds) } ?? "—")</td>"
                    + "<td>\(h(l.updatedBy)) \(Format.timeTag(l.updatedAt))</td>"
                    + "<td><form method=\"post\" action=\"\(h(path))\"><input type=\"hidden\" name=\"csrf\" value=\"\(h(csrf))\">"
                    + "<button type=\"submit\" aria-label=\"Clear the limits of \(h(l.kind))\">Clear</button></form></td></tr>"
            }
            html += "</tbody></table></div>"
        }
        let options = kinds.map { "<option value=\"\(h($0))\">\(h($0))</option>" }.joined()
        html += "<form id=\"limits-form\" method=\"post\" action=\"/admin/limits\" class=\"limits-form\">"
            + "<input type=\"hidden\" name=\"csrf\" value=\"\(h(csrf))\">"
            + "<label>Kind <select name=\"kind\">\(options)</select></label> "
            + "<label>Concurrency <input name=\"concurrency\" inputmode=\"numeric\" size=\"6\" placeholder=\"none\"></label> "
            + "<label>Per owner <input name=\"per_owner_concurrency\" inputmode=\"numeric\" size=\"6\" placeholder=\"none\"></label> "
            + "<label>Rate <input name=\"rate\" size=\"8\" placeholder=\"50/s\"></label> "
            + "<label>Timeout (s) <input name=\"timeout_s\" inputmode=\"decimal\" size=\"6\" placeholder=\"none\"></label> "
            + "<button type=\"submit\">Set limits</button>"
            + "<p class=\"muted\">Sets the kind's limits to exactly these: an empty field is no such limit.</p></form>"
        return html + "</section>"
    }

    /// `POST /admin/limits`: the form's limits for its kind, replacing the kind's.
    func save(_ request: Request, _ context: APIRequestContext, users: (@Sendable (Principal) async -> String)) async throws -> Response {
        var request = request
        let form = try await FormBody.read(&request)
        let change = try Self.change(from: form, kinds: kinds)
        let actor = await users(try context.requirePrincipal())
        do {
            try await queue.limits.set(change, actor: actor)
        } catch let error as QueueError {
            throw ConsoleError.badRequest(error.message)
        }
        return ConsolePage.redirect(to: "/admin/queues")
    }

    /// `POST /admin/limits/{kind}/clear`.
    func clear(_ request: Request, _ context: APIRequestContext, users: (@Sendable (Principal) async -> String)) async throws -> Response {
        guard let kind = context.parameters.get("kind")?.removingPercentEncoding, !kind.isEmpty, kind.utf8.count <= 64 else {
            throw ConsoleError.badRequest("That is not a job kind.")
        }
        let actor = await users(try context.requirePrincipal())
        try await queue.limits.clear(kind: kind, actor: actor)
        return ConsolePage.redirect(to: "/admin/queues")
    }

    static func change(from form: FormBody, kinds: JobKindCatalog) throws -> KindLimitsChange {
        guard let kind = form["kind"], kinds[kind] != nil else { throw ConsoleError.badRequest("Choose a job kind this server runs.") }
        func text(_ name: String) -> String? {
            form[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        // Numbers are only read here; their ranges are the queue's (KindLimitsChange.validate,
        // whose refusal `save` shows as this page's 400).
        func count(_ name: String, _ label: String) throws -> KindLimitsChange.Field<Int> {
            guard let value = text(name) else { return .remove }
            guard let number = Int(value) else { throw ConsoleError.badRequest("\(label) must be a whole number, or empty.") }
            return .set(number)
        }
        var change = KindLimitsChange(kind: kind, concurrency: try count("concurrency", "Concurrency"),
                                      ownerConcurrency: try count("per_owner_concurrency", "Per owner"), rate: .remove, timeout: .remove)
        if let value = text("rate") {
            do throws(QueueError) {
                change.rate = .set(try RateLimit(parsing: value))
            } catch {
                throw ConsoleError.badRequest(error.message)
            }
        }
        if let value = text("timeout_s") {
            guard let seconds = Double(value), seconds.isFinite, abs(seconds) <= 1e9 else {
                throw ConsoleError.badRequest("Timeout is a number of seconds, or empty.")
            }
            change.timeout = .set(.milliseconds(Int64((seconds * 1000).rounded())))
        }
        return change
    }
}
