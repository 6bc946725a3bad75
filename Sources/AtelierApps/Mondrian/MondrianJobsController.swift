import AtelierAPI
import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird
import NIOCore

/// Mondrian's view of a job (docs/clients.md §2), for the caller's own jobs (another owner's id, or
/// a malformed one, is a 404):
/// - `GET /status/{job_id}` → `job_data` plus `job_id`;
/// - `GET /stream/{job_id}` → Server-Sent Events: `connected`, then `status_update`s, and at the
///   end `analysis_complete` (an analysis that succeeded) and `done`. A new connection gets the
///   job as it stands, then what follows; `Last-Event-ID` (or `?last_event_id=`) resumes after
///   the event it names, inside the end group too (``MondrianStreamFormatter``);
/// - `GET /analysis/{job_id}` → the analysis's self-contained HTML report.
struct MondrianJobsController: Sendable {
    let queue: JobQueue
    let hub: EventHub
    let blobs: any BlobStore

    func register(on group: RouterGroup<APIRequestContext>) {
        group.get("status/:id", use: status)
        group.get("stream/:id", use: stream)
        group.get("analysis/:id", use: analysis)
    }

    struct Status: Encodable {
        var job_id: String
        var data: MondrianJobData

        func encode(to encoder: any Encoder) throws {
            try data.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(job_id, forKey: .job_id)
        }

        enum Key: String, CodingKey { case job_id }
    }

    private func ownJob(_ context: APIRequestContext) async throws -> Job {
        try await job(context.jobID(), owner: context.requirePrincipal().owner)
    }

    private func job(_ id: UUID, owner: String) async throws -> Job {
        do {
            return try await queue.job(id: id, owner: owner)
        } catch QueueError.jobNotFound {
            throw APIError.jobNotFound(id)
        }
    }

    @Sendable func status(_ request: Request, context: APIRequestContext) async throws -> Response {
        let job = try await ownJob(context)
        let progress = job.state == .running ? try await queue.latestEvent(jobID: job.id, type: "progress") : nil
        var response = try JSONResponse.encode(Status(job_id: job.id.uuidString.lowercased(),
                                                      data: MondrianJobData(job: job, latestProgress: progress)))
        response.headers[.cacheControl] = "no-cache"
        return response
    }

    @Sendable func stream(_ request: Request, context: APIRequestContext) async throws -> Response {
        let queue = self.queue
        let (id, principal) = (try context.jobID(), try context.requirePrincipal())
        let owner = principal.owner
        var job = try await OwnTaskStack.run { [self] in try await self.job(id, owner: owner) }
        let resume = try LastEventID.of(request, allowParts: true)
        var formatter = MondrianStreamFormatter(jobID: job.id, facts: .init(job), queue: queue, blobs: blobs)
        var prelude = "retry: 2000\n" + formatter.connected()
        var after: Int64 = 0
        if let resume {
            after = resume.eventID
            if let parts = resume.part {
                after = resume.eventID - 1
                formatter.resumeInside = (resume.eventID, parts)
            }
        } else {
            // A new connection: the job as it stands, then only what follows. The newest event is
            // read before the job, so the job is at least that new, and the snapshot is made of
            // nothing newer than the events replayed after it.
            let latest = try await OwnTaskStack.run { try await queue.latestEvent(jobID: id) }
            job = try await OwnTaskStack.run { [self] in try await self.job(id, owner: owner) }
            if job.state.isFinished {
                let terminal = try await OwnTaskStack.run { try await queue.latestEvent(jobID: id) }
                if let terminal, MondrianStreamFormatter.terminalTypes.contains(terminal.type) { after = terminal.id - 1 }
                else { after = terminal?.id ?? 0 }
            } else {
                let progress = job.state == .running
                    ? try await OwnTaskStack.run { try await queue.latestEvent(jobID: id, type: "progress", atMost: latest?.id ?? 0) } : nil
                var current = MondrianJobData(job: job, latestProgress: progress)
                if progress == nil { current.progress_percentage = 0 }
                formatter.last = current
                // A job with no event yet (queued, not claimed) is at 0: resuming from "0" replays everything.
                prelude += formatter.statusUpdate(current, eventID: String(latest?.id ?? 0))
                after = latest?.id ?? 0
            }
        }
        return try JobEventFeed(queue: queue, hub: hub).response(
            jobID: job.id, principal: principal, finishedAtStart: job.state.isFinished, after: after, prelude: prelude, formatter: formatter)
    }

    @Sendable func analysis(_ request: Request, context: APIRequestContext) async throws -> Response {
        let job = try await ownJob(context)
        let id = job.id.uuidString.lowercased()
        guard job.kind == "analysis" else {
            throw APIError.notFound("job \(id) is not an analysis (it is a \(job.kind) job)")
        }
        switch job.state {
        case .queued, .running:
            throw APIError.conflict("the analysis is not finished yet (\(job.progress)%); follow /stream/\(id) or poll /status/\(id)")
        case .failed, .cancelled:
            throw APIError.conflict("the analysis \(job.state == .cancelled ? "was cancelled" : "failed"): \(job.error ?? "no reason recorded")")
        case .succeeded:
            break
        }
        guard let html = try await MondrianReport.html(of: job, blobs: blobs) else {
            throw APIError.notFound("the report of analysis \(id) no longer exists")
        }
        let data = Data(html.utf8)
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8", .contentLength: String(data.count),
            .cacheControl: "private, max-age=3600", .eTag: ETag.of(data),
        ], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
