import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird
import NIOCore

/// `/v1/jobs`: create, read (with ETag/304 from ``JobViewCache``), list, cancel, follow (SSE).
/// Every job belongs to the caller who created it; another owner's id — or a malformed one —
/// is a 404, indistinguishable from a job that does not exist. Anonymous callers share their
/// owner, so they create and read by id only (``APIRequestContext/requireCredential(for:)``).
struct JobsController: Sendable {
    let queue: JobQueue
    let intake: JobIntake
    let cache: JobViewCache
    let hub: EventHub
    let links: DownloadLinks
    let configuration: APIConfiguration
    let base: PublicBaseURL

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("jobs", use: create)
        group.get("jobs", use: list)
        group.get("jobs/:id", use: show)
        group.delete("jobs/:id", use: cancel)
        group.post("jobs/:id/cancel", use: cancel)
        group.get("jobs/:id/events", use: events)
    }

    @Sendable func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        try intake.refuseUploadIfProbesFull(request)
        let body = try await RequestBodies.collect(request, limit: configuration.maxUploadBytes)
        let submission = try JobSubmission.parse(contentType: request.headers[.contentType], body: body)
        let accepted = try await intake.accept(submission, owner: principal.owner, anonymous: principal.isAnonymous,
                                               idempotencyKey: request.headers[.idempotencyKey],
                                               requestID: context.requestID, logger: context.logger)
        let id = accepted.id.uuidString.lowercased()
        let base = self.base.value(for: request)
        let job = try await queue.job(id: accepted.id, owner: principal.owner)
        let created = CreatedJob(id: id, kind: accepted.kind, status: JobView(job, baseURL: base, links: links).status,
                                 statusURL: "\(base)/v1/jobs/\(id)", streamURL: "\(base)/v1/jobs/\(id)/events",
                                 duplicate: accepted.duplicate ? true : nil)
        var response = try JSONResponse.encode(created)
        response.headers[.location] = created.statusURL
        if !accepted.created { response.headers[.idempotentReplayed] = "true" }
        return response
    }

    @Sendable func show(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try context.jobID()
        let base = self.base.value(for: request)
        let entry: JobViewCache.Entry
        if let hit = cache.lookup(id), hit.base == base {
            guard hit.owner == principal.owner else { throw APIError.jobNotFound(id) }
            entry = hit
        } else {
            let token = cache.beginRead()
            let job = try await queue.job(id: id, owner: principal.owner)
            let body = try render(job, base: base)
            entry = JobViewCache.Entry(owner: job.owner, body: body, etag: ETag.of(body), expires: expiry(), base: base)
            cache.store(id, entry, readToken: token)
        }
        if let match = request.headers[.ifNoneMatch], ETag.matches(match, entry.etag) {
            return Response(status: .notModified, headers: [.eTag: entry.etag, .cacheControl: "no-cache"])
        }
        var response = JSONResponse.data(entry.body)
        response.headers[.eTag] = entry.etag
        response.headers[.cacheControl] = "no-cache"
        return response
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requireCredential(for: "listing jobs")
        let query = request.uri.queryParameters
        let pageRequest = try PageRequest(query)
        var filter = JobFilter(owner: principal.owner, limit: pageRequest.limit, offset: pageRequest.offset)
        filter.states = try Self.states(status: query.getAll("status"), state: query.getAll("state"))
        let kinds = query.getAll("kind").flatMap { $0.split(separator: ",").map(String.init) }
        // A name holding NUL is no job's kind (PostgreSQL text cannot even hold it): it matches nothing.
        filter.kinds = kinds.filter { !$0.utf8.contains(0) }
        let (jobs, total) = !kinds.isEmpty && filter.kinds.isEmpty ? ([], 0) : try await queue.jobs(filter)
        let base = self.base.value(for: request)
        return try JSONResponse.encode(Page(data: jobs.map { JobView($0, baseURL: base, links: links) }, request: pageRequest, total: total))
    }

    @Sendable func cancel(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requireCredential(for: "cancelling a job")
        let id = try context.jobID()
        let state: JobState
        do {
            state = try await queue.cancel(id: id, owner: principal.owner, reason: "cancelled by the client")
        } catch QueueError.jobNotFound {
            throw APIError.jobNotFound(id)
        }
        if state == .succeeded || state == .failed {
            throw APIError.conflict("the job already \(state.rawValue); there is nothing to cancel")
        }
        let job = try await queue.job(id: id, owner: principal.owner)
        return JSONResponse.data(try render(job, base: base.value(for: request)), status: .accepted)
    }

    @Sendable func events(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try context.jobID()
        let queue = self.queue
        let job = try await OwnTaskStack.run { try await queue.job(id: id, owner: principal.owner) }
        let after = try LastEventID.of(request, allowParts: false)?.eventID ?? 0
        let base = self.base.value(for: request)
        let stream = JobEventStream(queue: queue, hub: hub, renderJob: { [self] job in try self.render(job, base: base) })
        return try stream.response(job: job, principal: principal, after: after)
    }

    // MARK: Helpers

    /// The job's JSON, its URLs on `base` (the request's, ``PublicBaseURL/value(for:)``).
    func render(_ job: Job, base: String) throws -> Data {
        try APIJSON.encode(JobView(job, baseURL: base, links: links))
    }

    /// Cached views expire before the result URL inside them would be re-issued.
    private func expiry() -> ContinuousClock.Instant {
        let now = Date().timeIntervalSince1970
        let windowEnd = Double((Int(now) / links.signer.window + 1) * links.signer.window)
        return .now + min(cache.ttl, .milliseconds(Int64(max(0, windowEnd - now) * 1000)))
    }

    /// `status=pending|succeeded|failed` (the §3 vocabulary) and `state=queued|running|…`, comma lists.
    static func states(status: [String], state: [String]) throws -> [JobState] {
        var states: [JobState] = []
        for name in status.flatMap({ $0.split(separator: ",") }).map(String.init) {
            switch name {
            case "pending": states += [.queued, .running]
            case "succeeded": states += [.succeeded]
            case "failed": states += [.failed, .cancelled]
            default: throw APIError.validation("unknown status '\(name.prefix(32))'; use pending, succeeded or failed", field: "status")
            }
        }
        for name in state.flatMap({ $0.split(separator: ",") }).map(String.init) {
            guard let value = JobState(rawValue: name) else {
                throw APIError.validation("unknown state '\(name.prefix(32))'; use queued, running, succeeded, failed or cancelled", field: "state")
            }
            states.append(value)
        }
        return states
    }
}

struct CreatedJob: Encodable {
    var id: String
    var kind: String
    var status: String
    var statusURL: String
    var streamURL: String
    /// `true` when the answer is an earlier job this request's `unique` matched; absent otherwise.
    var duplicate: Bool?

    enum CodingKeys: String, CodingKey {
        case id, kind, status, statusURL = "status_url", streamURL = "stream_url", duplicate
    }
}
