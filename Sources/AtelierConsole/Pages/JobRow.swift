import AtelierQueue
import Foundation

/// One job as a row of the job list, written the same for the page and for live updates. Its
/// `data-` attributes let the script tell whether a live row matches the list's filters.
enum JobRow {
    static let header = "<tr><th scope=\"col\">Job</th><th scope=\"col\">Kind</th><th scope=\"col\">State</th><th scope=\"col\">Owner</th>"
        + "<th scope=\"col\">Queue</th><th scope=\"col\" class=\"num\">Attempt</th><th scope=\"col\">Created (UTC)</th><th scope=\"col\">Finished (UTC)</th></tr>"

    static func render(_ job: Job) -> String {
        let id = job.id.uuidString.lowercased()
        return "<tr id=\"job-\(id)\" data-id=\"\(id)\" data-kind=\"\(h(job.kind))\" data-state=\"\(job.state.rawValue)\" data-owner=\"\(h(job.owner))\">"
            + "<td><a href=\"/admin/jobs/\(id)\" class=\"mono\" aria-label=\"Job \(id)\">\(Format.shortID(job.id))</a></td>"
            + "<td>\(h(job.kind))</td><td>\(badge(job))</td><td>\(h(job.owner))</td><td>\(h(job.queue))</td>"
            + "<td class=\"num\">\(job.attempt)/\(job.maxAttempts)</td><td>\(Format.timeTag(job.createdAt))</td><td>\(Format.timeTag(job.finishedAt))</td></tr>"
    }

    /// The state as a coloured word (the colour repeats the word: nothing is said by colour alone).
    static func badge(_ job: Job) -> String {
        var text = job.state.rawValue
        if job.state == .running, job.progress > 0 { text += " \(job.progress)%" }
        if job.cancelRequested, job.state == .running { text += " (cancelling)" }
        return "<span class=\"badge \(job.state.rawValue)\">\(h(text))</span>"
    }
}
