import AtelierAPI
import AtelierQueue
import Foundation
import Hummingbird

/// `GET /admin/workers`: every registered worker process — host and pid, queues and kinds it
/// serves, the jobs in its hands, how long since its heartbeat, when it started. A worker whose
/// process is gone (its liveness lock released) or that is alive but has not sent a heartbeat
/// for ``stuckAfter`` (a hung process) says so in words, not only in colour.
struct WorkersPage: Sendable {
    let queue: JobQueue
    let sessions: ConsoleSessions

    /// Heartbeats come every 5 s by default: six missed ones mean the worker is stuck.
    static let stuckAfter: TimeInterval = 30

    enum Health: String { case live, stuck, gone }

    static func health(_ worker: WorkerInfo, now: Date = Date()) -> Health {
        if !worker.alive { return .gone }
        return now.timeIntervalSince(worker.heartbeatAt) > stuckAfter ? .stuck : .live
    }

    func show(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        async let workers = queue.workers()
        var running = JobBrowseQuery()
        running.criteria.states = [.running]
        running.limit = 500
        async let inHand = queue.browse(running)
        let csrf = sessions.csrfToken(for: try context.requirePrincipal())
        let jobsByWorker = Dictionary(grouping: try await inHand.jobs, by: { $0.leaseOwner ?? "" })
        let list = try await workers
        let now = Date()
        var body = "<p class=\"muted\">A worker is <strong>stuck</strong> when its process holds its lock but has sent no heartbeat for "
            + "\(Int(Self.stuckAfter)) s, and <strong>gone</strong> when its process has stopped (its jobs are rescued and run again).</p>"
        guard !list.isEmpty else {
            return ConsolePage.render(title: "Workers", section: .workers, csrf: csrf, body: body + "<p>No worker is registered. Start some with <code>atelier work</code>.</p>")
        }
        body += "<div class=\"scroll\" tabindex=\"0\"><table id=\"workers-table\"><thead><tr><th scope=\"col\">Worker</th><th scope=\"col\">Status</th><th scope=\"col\">Host · pid</th>"
            + "<th scope=\"col\">Queues</th><th scope=\"col\">Kinds</th><th scope=\"col\" class=\"num\">Jobs in hand</th><th scope=\"col\" class=\"num\">Processed</th>"
            + "<th scope=\"col\">Heartbeat</th><th scope=\"col\">Started (UTC)</th><th scope=\"col\">Version</th></tr></thead><tbody>"
        for worker in list {
            let health = Self.health(worker, now: now)
            let jobs = jobsByWorker[worker.id] ?? []
            var inHands = "\(worker.running)/\(worker.concurrency)"
            if !jobs.isEmpty {
                inHands += "<br>" + jobs.prefix(8).map {
                    "<a href=\"/admin/jobs/\($0.id.uuidString.lowercased())\" class=\"mono\">\(Format.shortID($0.id))</a>"
                }.joined(separator: " ")
            }
            html(&body, worker: worker, health: health, inHands: inHands, now: now)
        }
        body += "</tbody></table></div>"
        return ConsolePage.render(title: "Workers", section: .workers, csrf: csrf, body: body)
    }

    private func html(_ body: inout String, worker: WorkerInfo, health: Health, inHands: String, now: Date) {
        body += "<tr class=\"worker-\(health.rawValue)\"><th scope=\"row\" class=\"mono\">\(h(worker.id))</th>"
            + "<td><span class=\"badge \(health.rawValue)\">\(health.rawValue)</span></td>"
            + "<td>\(h(worker.host)) · \(worker.pid)</td><td>\(h(worker.queues.joined(separator: ", ")))</td>"
            + "<td>\(h(worker.kinds.joined(separator: ", ")))</td><td class=\"num\">\(inHands)</td><td class=\"num\">\(worker.processed)</td>"
            + "<td>\(Format.age(since: worker.heartbeatAt, now: now))</td><td>\(Format.timeTag(worker.startedAt))</td><td>\(h(worker.version))</td></tr>"
    }
}
