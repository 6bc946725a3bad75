import AtelierAPI
import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird
import Logging

/// Retry, cancel and purge one job: `GET /admin/jobs/{id}/{action}` asks for confirmation (a
/// page with one button; nothing changes), `POST` to the same path (with the session's CSRF
/// token) does it, records it in the audit log and goes back to the job (to the list after a purge).
struct JobActionsPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions
    let blobs: any BlobStore

    func confirm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let id = try JobPage.jobID(context)
        let action = try Self.action(context)
        let job = try await queue.job(id: id)
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        let path = "/admin/jobs/\(id.uuidString.lowercased())"
        guard action.allowed(for: job.state) else {
            throw ConsoleError(status: .conflict, title: "Not possible now",
                               message: "This job is \(job.state.rawValue): it cannot be \(action == .retry ? "retried" : action == .cancel ? "cancelled" : "purged").")
        }
        let body = """
            <p>\(h(job.kind)) job <span class="mono">\(id.uuidString.lowercased())</span>, owned by \(h(job.owner)), is \(JobRow.badge(job)).</p>
            <p>\(action.consequence)</p>
            <form method="post" action="\(path)/\(action.rawValue)" class="confirm">
            <input type="hidden" name="csrf" value="\(h(csrf))">
            <button type="submit" class="\(action.rawValue)" id="confirm-\(action.rawValue)">\(action.title) this job</button>
            <a href="\(path)">Keep it as it is</a>
            </form>
            """
        return ConsolePage.render(title: "\(action.title) job \(Format.shortID(id))?", section: .jobs, csrf: csrf, body: body)
    }

    func perform(_ request: Request, _ context: APIRequestContext, users: (@Sendable (Principal) async -> String)) async throws -> Response {
        let id = try JobPage.jobID(context)
        let action = try Self.action(context)
        let principal = try context.requirePrincipal()
        let target = "job:\(id.uuidString.lowercased())"
        switch action {
        case .retry:
            try await queue.retry(id: id)
        case .cancel:
            // A finished job is left as it is (and the cancel is not audited).
            let before = try await queue.job(id: id).state
            guard !before.isFinished else { throw QueueError.conflict("This job is already \(before.rawValue); there is nothing to cancel.") }
            try await queue.cancel(id: id, reason: "cancelled by operator")
        case .purge:
            try await queue.delete(finishedJob: id)
            do {
                try await blobs.deleteAll(under: BlobKey.jobFolder(id))
            } catch {
                // The folder belongs to no job now: the maintenance leader's orphan sweep removes it later.
                context.logger.warning("could not remove a purged job's files", metadata: ["job": "\(id)", "error": "\(error)"])
            }
        }
        try await queue.audit(actor: await users(principal), action: action.rawValue, target: target)
        return ConsolePage.redirect(to: action == .purge ? "/admin/jobs" : "/admin/jobs/\(id.uuidString.lowercased())?done=\(action.rawValue)")
    }

    static func action(_ context: APIRequestContext) throws -> JobAction {
        guard let text = context.parameters.get("action"), let action = JobAction(rawValue: text) else {
            throw ConsoleError(status: .notFound, title: "No such action", message: "A job can be retried, cancelled or purged.")
        }
        return action
    }
}
