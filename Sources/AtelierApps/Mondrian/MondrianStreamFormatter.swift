import AtelierAPI
import AtelierQueue
import AtelierStorage
import Foundation

/// Mondrian's `/stream/{job_id}` dialect of a job's events (docs/clients.md §2): every change is a
/// `status_update {type, job_id, job_data}` with the job event's id; the end is a group —
/// `status_update` (completed or failed), `analysis_complete {type, job_id, analysis_html}`
/// when an analysis succeeded, `done {type, job_id}` — whose parts have ids `N.1`, `N.2`, `N.3`
/// (N the terminal event's id), so a client that reconnects mid-group with `Last-Event-ID`
/// gets exactly the parts it missed.
struct MondrianStreamFormatter: JobEventFormatter {
    let jobID: UUID
    let facts: MondrianJobData.Facts
    let queue: JobQueue
    let blobs: any BlobStore
    /// A resume inside a terminal group: skip its first `parts` parts.
    var resumeInside: (eventID: Int64, parts: Int)?
    var last: MondrianJobData?

    static let terminalTypes = JobEventStream.terminalTypes

    struct Connected: Encodable { var type = "connected"; var job_id: String }
    struct StatusUpdate: Encodable { var type = "status_update"; var job_id: String; var job_data: MondrianJobData }
    struct AnalysisComplete: Encodable { var type = "analysis_complete"; var job_id: String; var analysis_html: String }
    struct Done: Encodable { var type = "done"; var job_id: String }

    var id: String { jobID.uuidString.lowercased() }

    static func frame(_ name: String, id: String?, _ value: some Encodable) -> String {
        let json = (try? APIJSON.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(JobEventFeed.oneLine(json))\n\n"
    }

    func connected() -> String { Self.frame("connected", id: nil, Connected(job_id: id)) }

    func statusUpdate(_ data: MondrianJobData, eventID: String?) -> String {
        Self.frame("status_update", id: eventID, StatusUpdate(job_id: id, job_data: data))
    }

    mutating func frames(for event: JobEvent) async throws -> (text: String, finished: Bool) {
        guard let update = MondrianJobData.update(for: event, facts: facts, last: last) else { return ("", false) }
        last = update
        guard Self.terminalTypes.contains(event.type) else {
            return (statusUpdate(update, eventID: String(event.id)), false)
        }
        let skip = resumeInside?.eventID == event.id ? resumeInside?.parts ?? 0 : 0
        var parts: [(number: Int, text: String)] = [(1, statusUpdate(update, eventID: "\(event.id).1"))]
        if event.type == "succeeded", facts.kind == "analysis", skip < 2, let html = try await analysisHTML() {
            parts.append((2, Self.frame("analysis_complete", id: "\(event.id).2", AnalysisComplete(job_id: id, analysis_html: html))))
        }
        parts.append((3, Self.frame("done", id: "\(event.id).3", Done(job_id: id))))
        let text = parts.filter { $0.number > skip }.map(\.text).joined()
        return (text, true)
    }

    /// The finished analysis's HTML report, or nil when it is gone (purged).
    func analysisHTML() async throws -> String? {
        let (queue, blobs, jobID) = (self.queue, self.blobs, self.jobID)
        return try await OwnTaskStack.run {
            let job = try await queue.job(id: jobID)
            return try await MondrianReport.html(of: job, blobs: blobs)
        }
    }
}
