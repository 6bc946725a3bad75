import AtelierQueue
import Foundation

/// The figures of the overview: jobs by kind and state, each queue's depth and oldest waiting
/// job, finished jobs and failures per minute over the last hour, run times by kind.
struct Overview: Sendable {
    var stats: QueueStats
    var runTimes: [RunTimes]
    var at: Date

    static let minutes = 60

    static func load(_ queue: JobQueue) async throws -> Overview {
        async let stats = queue.stats(minutes: minutes)
        async let runTimes = queue.runTimes(minutes: minutes)
        return Overview(stats: try await stats, runTimes: try await runTimes, at: Date())
    }

    var oldestQueuedAge: Double { stats.queues.map(\.oldestReadyAgeSeconds).max() ?? 0 }
    var finishedLastHour: Int { stats.throughput.reduce(0) { $0 + $1.succeeded + $1.failed } }
    var failedLastHour: Int { stats.throughput.reduce(0) { $0 + $1.failed } }

    func count(_ state: JobState) -> Int {
        stats.counts.filter { $0.state == state }.reduce(0) { $0 + $1.count }
    }
}

/// The overview's content, written once for the page and again for each live update.
enum OverviewView {
    static func render(_ overview: Overview) -> String {
        var html = "<p class=\"muted\">As of \(Format.timeTag(overview.at)) UTC.</p>"
        html += summary(overview)
        html += "<div class=\"charts\">"
        html += Chart.bars(title: "Finished per minute, last hour", values: overview.stats.throughput.map { Double($0.succeeded) },
                           secondary: overview.stats.throughput.map { Double($0.failed) },
                           legend: ("succeeded", "failed"), format: { String(Int($0)) })
        html += Chart.bars(title: "Failure rate per minute, last hour", values: overview.stats.throughput.map {
            let finished = $0.succeeded + $0.failed
            return finished == 0 ? 0 : Double($0.failed) / Double(finished)
        }, secondary: nil, legend: ("failed / finished", nil), format: Format.percent, fixedMax: 1, primary: "bad")
        html += "</div>"
        html += depthTable(overview)
        html += queuesTable(overview)
        html += runTimesTable(overview)
        return html
    }

    private static func summary(_ overview: Overview) -> String {
        let failed = overview.failedLastHour, finished = overview.finishedLastHour
        let items: [(String, String, String)] = [
            ("queued", "Queued", String(overview.count(.queued))),
            ("running", "Running", String(overview.count(.running))),
            ("finished-hour", "Finished, last hour", String(finished)),
            ("failure-rate", "Failure rate, last hour", finished == 0 ? "—" : Format.percent(Double(failed) / Double(finished))),
            ("oldest-queued", "Oldest queued job", overview.oldestQueuedAge == 0 ? "none waiting" : Format.duration(seconds: overview.oldestQueuedAge)),
        ]
        return "<dl class=\"tiles\">" + items.map { id, label, value in
            "<div class=\"tile\" id=\"tile-\(id)\"><dt>\(label)</dt><dd>\(h(value))</dd></div>"
        }.joined() + "</dl>"
    }

    private static func depthTable(_ overview: Overview) -> String {
        let states = JobState.allCases
        let kinds = Array(Set(overview.stats.counts.map(\.kind))).sorted()
        var html = "<section aria-labelledby=\"depth-title\"><h2 id=\"depth-title\">Jobs by kind and state</h2>"
        guard !kinds.isEmpty else { return html + "<p>No jobs yet.</p></section>" }
        html += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Kind</th>"
        html += states.map { "<th scope=\"col\" class=\"num\">\($0.rawValue)</th>" }.joined() + "</tr></thead><tbody>"
        for kind in kinds {
            html += "<tr><th scope=\"row\">\(h(kind))</th>"
            for state in states {
                let count = overview.stats.counts.first { $0.kind == kind && $0.state == state }?.count ?? 0
                let link = "/admin/jobs" + HTML.query([("kind", kind), ("state", state.rawValue)])
                html += "<td class=\"num\">" + (count == 0 ? "0" : "<a href=\"\(h(link))\">\(count)</a>") + "</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table></div></section>"
    }

    private static func queuesTable(_ overview: Overview) -> String {
        var html = "<section aria-labelledby=\"queues-title\"><h2 id=\"queues-title\">Queues</h2>"
        guard !overview.stats.queues.isEmpty else { return html + "<p>No queue has waiting or running jobs.</p></section>" }
        html += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Queue</th><th scope=\"col\">State</th><th scope=\"col\" class=\"num\">Ready</th>"
            + "<th scope=\"col\" class=\"num\">Scheduled</th><th scope=\"col\" class=\"num\">Running</th><th scope=\"col\" class=\"num\">Oldest ready</th></tr></thead><tbody>"
        for queue in overview.stats.queues {
            html += "<tr><th scope=\"row\">\(h(queue.queue))</th><td>\(queue.paused ? "<span class=\"badge paused\">paused</span>" : "active")</td>"
                + "<td class=\"num\">\(queue.ready)</td><td class=\"num\">\(queue.scheduled)</td><td class=\"num\">\(queue.running)</td>"
                + "<td class=\"num\">\(queue.oldestReadyAgeSeconds == 0 ? "—" : Format.duration(seconds: queue.oldestReadyAgeSeconds))</td></tr>"
        }
        return html + "</tbody></table></div></section>"
    }

    private static func runTimesTable(_ overview: Overview) -> String {
        var html = "<section aria-labelledby=\"runtimes-title\"><h2 id=\"runtimes-title\">Run time by kind, last hour</h2>"
        guard !overview.runTimes.isEmpty else { return html + "<p>No job finished in the last hour.</p></section>" }
        html += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Kind</th><th scope=\"col\" class=\"num\">Finished</th>"
            + "<th scope=\"col\" class=\"num\">p50</th><th scope=\"col\" class=\"num\">p99</th></tr></thead><tbody>"
        for row in overview.runTimes {
            html += "<tr><th scope=\"row\">\(h(row.kind))</th><td class=\"num\">\(row.finished)</td>"
                + "<td class=\"num\">\(Format.duration(seconds: row.p50))</td><td class=\"num\">\(Format.duration(seconds: row.p99))</td></tr>"
        }
        return html + "</tbody></table></div></section>"
    }
}
