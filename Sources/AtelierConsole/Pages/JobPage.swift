import AtelierAPI
import AtelierJobs
import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird

/// `GET /admin/jobs/{id}`: one job whole — its fields and progress, what it was asked (secrets
/// redacted), each attempt with its worker and error, its parent and follow-ups, its result (an
/// image previewed through its signed URL, JSON pretty), its event timeline — and the actions
/// its state allows (retry, cancel, purge), each behind a confirmation.
struct JobPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions
    let links: DownloadLinks
    let publicBase: PublicBaseURL

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let id = try Self.jobID(context)
        let job = try await queue.job(id: id)
        async let events = queue.events(jobID: id, limit: 1_000)
        async let children = queue.children(of: id)
        async let audit = queue.auditLog(target: "job:\(id.uuidString.lowercased())", limit: 20)
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        var body = ""
        if let done = request.uri.queryParameters["done"].map(String.init), let action = JobAction(rawValue: done) {
            body += "<p class=\"notice\" role=\"status\">\(h(action.doneMessage))</p>"
        }
        body += facts(job)
        body += actions(job)
        body += attempts(job, events: try await events)
        body += related(job, children: try await children)
        body += result(job, base: publicBase.value(for: request))
        body += section("payload", "Payload", "<pre class=\"json\">\(h(PayloadRedaction.pretty(job.payload) ?? ""))</pre>"
            + "<p class=\"muted\">Values of keys that name secrets, and signing parameters of URLs, are redacted.</p>")
        body += timeline(try await events)
        body += auditTable(try await audit)
        return ConsolePage.render(title: "\(job.kind) job \(Format.shortID(job.id))", section: .jobs, csrf: csrf, live: "job",
                                  body: "<div data-job=\"\(id.uuidString.lowercased())\" data-state=\"\(job.state.rawValue)\">" + body + "</div>")
    }

    static func jobID(_ context: APIRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw ConsoleError(status: .notFound, title: "No such job", message: "That is not a job id.")
        }
        return id
    }

    private func section(_ id: String, _ title: String, _ content: String) -> String {
        "<section aria-labelledby=\"\(id)-title\"><h2 id=\"\(id)-title\">\(title)</h2>\(content)</section>"
    }

    private func facts(_ job: Job) -> String {
        var rows: [(String, String)] = [
            ("Job id", "<span class=\"mono\">\(job.id.uuidString.lowercased())</span>"),
            ("State", JobRow.badge(job)),
            ("Kind", h(job.kind)), ("Queue", h(job.queue)), ("Owner", h(job.owner)), ("Priority", String(job.priority)),
            ("Attempt", "\(job.attempt) of \(job.maxAttempts) (crashes \(job.crashes), snoozes \(job.snoozes))"),
            ("Progress", "<progress max=\"100\" value=\"\(job.progress)\" aria-label=\"Progress\">\(job.progress)%</progress> \(job.progress)%"
                + (job.progressStep.map { " · " + h($0) } ?? "")),
            ("Created", Format.timeTag(job.createdAt)), ("Runs from", Format.timeTag(job.runAt)),
            ("Started", Format.timeTag(job.startedAt)), ("Finished", Format.timeTag(job.finishedAt)),
        ]
        if let worker = job.leaseOwner, job.state == .running {
            rows.append(("Worker", "<span class=\"mono\">\(h(worker))</span> (lease until \(Format.timeTag(job.leaseExpiresAt)))"))
        }
        if let requestID = job.requestID { rows.append(("Request id", "<span class=\"mono\">\(h(requestID))</span>")) }
        if let key = job.idempotencyKey { rows.append(("Idempotency key", "<span class=\"mono\">\(h(key))</span>")) }
        if let error = job.error { rows.append(("Error", "<span class=\"error-text\">\(h(error))</span>")) }
        return "<dl class=\"facts\">" + rows.map { "<div><dt>\($0.0)</dt><dd>\($0.1)</dd></div>" }.joined() + "</dl>"
    }

    private func actions(_ job: Job) -> String {
        let id = job.id.uuidString.lowercased()
        let possible = JobAction.allCases.filter { $0.allowed(for: job.state) }
        guard !possible.isEmpty else { return "" }
        return "<div class=\"actions\">" + possible.map {
            "<a class=\"button \($0.rawValue)\" href=\"/admin/jobs/\(id)/\($0.rawValue)\">\($0.title)…</a>"
        }.joined(separator: " ") + "</div>"
    }

    private struct Attempt { var number: Int; var worker: String?; var at: Date?; var error: String?; var crash = false }

    /// Each claim (its `running` event names the worker) beside the error it ended with.
    private func attempts(_ job: Job, events: [JobEvent]) -> String {
        var byNumber: [Int: Attempt] = [:]
        for event in events where event.type == "running" {
            guard let data = Self.object(event.data), let number = data["attempt"] as? Int else { continue }
            byNumber[number] = Attempt(number: number, worker: data["worker"] as? String, at: event.createdAt)
        }
        for entry in (try? JSONSerialization.jsonObject(with: Data(job.errors.utf8))) as? [[String: Any]] ?? [] {
            guard let number = entry["attempt"] as? Int else { continue }
            var attempt = byNumber[number] ?? Attempt(number: number)
            attempt.error = entry["error"] as? String
            attempt.crash = entry["crash"] as? Bool ?? false
            byNumber[number] = attempt
        }
        guard !byNumber.isEmpty else { return section("attempts", "Attempts", "<p>Not claimed yet.</p>") }
        var html = "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\" class=\"num\">Attempt</th><th scope=\"col\">Worker</th>"
            + "<th scope=\"col\">Started (UTC)</th><th scope=\"col\">Ended with</th></tr></thead><tbody>"
        for attempt in byNumber.values.sorted(by: { $0.number < $1.number }) {
            let outcome = attempt.error.map { "<span class=\"error-text\">\(attempt.crash ? "worker lost: " : "")\(h($0))</span>" }
                ?? (attempt.number == job.attempt ? h(job.state.rawValue) : "—")
            html += "<tr><td class=\"num\">\(attempt.number)</td><td class=\"mono\">\(h(attempt.worker ?? "—"))</td>"
                + "<td>\(Format.timeTag(attempt.at))</td><td>\(outcome)</td></tr>"
        }
        return section("attempts", "Attempts", html + "</tbody></table></div>")
    }

    private func related(_ job: Job, children: [Job]) -> String {
        guard job.parentID != nil || !children.isEmpty || job.followUp != nil else { return "" }
        var html = "<ul>"
        if let parent = job.parentID {
            html += "<li>Enqueued by <a href=\"/admin/jobs/\(parent.uuidString.lowercased())\" class=\"mono\">\(Format.shortID(parent))</a></li>"
        }
        for child in children {
            html += "<li>Follow-up <a href=\"/admin/jobs/\(child.id.uuidString.lowercased())\" class=\"mono\">\(Format.shortID(child.id))</a> "
                + "\(h(child.kind)) \(JobRow.badge(child))</li>"
        }
        if children.isEmpty, job.followUp != nil { html += "<li>Follow-ups are enqueued when this job succeeds.</li>" }
        return section("related", "Parent and follow-ups", html + "</ul>")
    }

    private func result(_ job: Job, base: String) -> String {
        guard job.state == .succeeded else { return "" }
        var html = ""
        if let key = ResultFields.of(result: job.result)?.resultBlob.flatMap({ try? BlobKey($0) }) {
            let url = links.url(for: key, apiBase: base)
            if ["jpg", "jpeg", "png", "webp", "gif"].contains(key.fileExtension.lowercased()) {
                html += "<p><img class=\"preview\" src=\"\(h(url))\" alt=\"The image this job produced\" loading=\"lazy\"></p>"
            }
            html += "<p><a href=\"\(h(url))\" rel=\"noreferrer\">Open the result file</a> (a signed link, valid for a limited time)</p>"
        }
        html += "<pre class=\"json\">\(h(PayloadRedaction.pretty(job.result) ?? "null"))</pre>"
        return section("result", "Result", html)
    }

    private func timeline(_ events: [JobEvent]) -> String {
        guard !events.isEmpty else { return "" }
        var html = "<ol class=\"timeline\">"
        for event in events {
            let data = PayloadRedaction.pretty(event.data).map { $0.replacingOccurrences(of: "\n", with: " ") } ?? ""
            html += "<li>\(Format.timeTag(event.createdAt)) <strong>\(h(event.type))</strong> <code>\(h(data))</code></li>"
        }
        return section("events", "Events", html + "</ol>")
    }

    private func auditTable(_ entries: [AuditEntry]) -> String {
        guard !entries.isEmpty else { return "" }
        return section("job-audit", "Operator actions", AuditTable.render(entries))
    }

    private static func object(_ json: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }
}
