import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird
import NIOCore

/// `/v1/jobs`: create, read (with ETag/304 from ``JobViewCache``), list, cancel, follow (SSE).
/// Every job belongs to the caller who created it; another owner's id — or a malformed one —
/// is a 404, indistinguishable from a job that does not exist.
struct JobsController: Sendable {
    let queue: JobQueue
    let intake: JobIntake
    let cache: JobViewCache
    let hub: EventHub
    let signer: URLSigner
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
        let body = try await RequestBodies.collect(request, limit: configuration.maxUploadBytes)
        let submission = try JobSubmission.parse(contentType: request.headers[.contentType], body: body)
        let accepted = try await intake.accept(submission, owner: principal.owner,
                                               idempotencyKey: request.headers[.idempotencyKey],
                                               requestID: context.requestID, logger: context.logger)
        let id = accepted.id.uuidString.lowercased()
        let base = self.base.value
        let job = try await queue.job(id: accepted.id, owner: principal.owner)
        let created = CreatedJob(id: id, kind: accepted.kind, status: JobView(job, baseURL: base, signer: signer).status,
                                 statusURL: "\(base)/v1/jobs/\(id)", streamURL: "\(base)/v1/jobs/\(id)/events")
        var response = try Self.json(created)
        response.headers[.location] = created.statusURL
        if !accepted.created { response.headers[.idempotentReplayed] = "true" }
        return response
    }

    @Sendable func show(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try Self.jobID(context)
        let entry: JobViewCache.Entry
        if let hit = cache.lookup(id) {
            guard hit.owner == principal.owner else { throw Self.notFound(id) }
            entry = hit
        } else {
            let token = cache.beginRead()
            let job = try await queue.job(id: id, owner: principal.owner)
            let body = try render(job)
            entry = JobViewCache.Entry(owner: job.owner, body: body, etag: ETag.of(body), expires: expiry())
            cache.store(id, entry, readToken: token)
        }
        if let match = request.headers[.ifNoneMatch], ETag.matches(match, entry.etag) {
            return Response(status: .notModified, headers: [.eTag: entry.etag, .cacheControl: "no-cache"])
        }
        var response = Self.jsonResponse(entry.body)
        response.headers[.eTag] = entry.etag
        response.headers[.cacheControl] = "no-cache"
        return response
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let query = request.uri.queryParameters
        let page = try Self.integer(query["page"].map(String.init), name: "page", default: 1, range: 1...1_000_000)
        let limit = try Self.integer(query["limit"].map(String.init), name: "limit", default: 20, range: 1...100)
        var filter = JobFilter(owner: principal.owner, limit: limit, offset: (page - 1) * limit)
        filter.states = try Self.states(status: query.getAll("status"), state: query.getAll("state"))
        filter.kinds = query.getAll("kind").flatMap { $0.split(separator: ",").map(String.init) }
        let (jobs, total) = try await queue.jobs(filter)
        let pages = total == 0 ? 0 : (total + limit - 1) / limit
        let page_ = JobPage(
            data: jobs.map { JobView($0, baseURL: base.value, signer: signer) },
            pagination: .init(page: page, limit: limit, total: total, pages: pages,
                              hasNextPage: page < pages, hasPreviousPage: page > 1))
        return try Self.json(page_)
    }

    @Sendable func cancel(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try Self.jobID(context)
        let state: JobState
        do {
            state = try await queue.cancel(id: id, owner: principal.owner, reason: "cancelled by the client")
        } catch QueueError.jobNotFound {
            throw Self.notFound(id)
        }
        if state == .succeeded || state == .failed {
            throw APIError.conflict("the job already \(state.rawValue); there is nothing to cancel")
        }
        let job = try await queue.job(id: id, owner: principal.owner)
        return Self.jsonResponse(try render(job), status: .accepted)
    }

    @Sendable func events(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try Self.jobID(context)
        let queue = self.queue
        let job = try await OwnTaskStack.run { try await queue.job(id: id, owner: principal.owner) }
        let after = try Self.lastEventID(request, allowParts: false)?.eventID ?? 0
        let stream = JobEventStream(queue: queue, hub: hub, renderJob: { [self] job in try self.render(job) })
        return try stream.response(job: job, principal: principal, after: after)
    }

    // MARK: Helpers

    func render(_ job: Job) throws -> Data {
        try APIJSON.encode(JobView(job, baseURL: base.value, signer: signer))
    }

    /// Cached views expire before the result URL inside them would be re-issued.
    private func expiry() -> ContinuousClock.Instant {
        let now = Date().timeIntervalSince1970
        let windowEnd = Double((Int(now) / signer.window + 1) * signer.window)
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

    static func jobID(_ context: APIRequestContext) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = JobID.uuid(text) else { throw APIError.notFound("no job with id '\(text.prefix(64))'") }
        return id
    }

    /// The stream's resume point from `Last-Event-ID` or `?last_event_id=`; 400 when malformed.
    static func lastEventID(_ request: Request, allowParts: Bool) throws -> LastEventID? {
        // A blank header is no header: the query (what a browser's EventSource can send) counts then.
        let header = request.headers[.lastEventID].flatMap { HeaderText.trimmed($0).isEmpty ? nil : $0 }
            ?? request.uri.queryParameters["last_event_id"].map(String.init)
        do {
            return try LastEventID.parse(header, allowParts: allowParts)
        } catch {
            throw APIError.validation("Last-Event-ID must be an event id from this stream (like 42\(allowParts ? " or 42.2" : ""))",
                                      field: "Last-Event-ID")
        }
    }

    static func notFound(_ id: UUID) -> APIError {
        .notFound("no job with id \(id.uuidString.lowercased())")
    }

    static func integer(_ text: String?, name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.validation("\(name) must be a whole number in \(range.lowerBound)…\(range.upperBound)", field: name)
        }
        return value
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        jsonResponse(try APIJSON.encode(value), status: status)
    }

    static func jsonResponse(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status,
                 headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
                 body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

struct CreatedJob: Encodable {
    var id: String
    var kind: String
    var status: String
    var statusURL: String
    var streamURL: String

    enum CodingKeys: String, CodingKey {
        case id, kind, status, statusURL = "status_url", streamURL = "stream_url"
    }
}

/// docs/contracts.md §4 pagination.
struct JobPage: Encodable {
    struct Pagination: Encodable {
        var page: Int
        var limit: Int
        var total: Int
        var pages: Int
        var hasNextPage: Bool
        var hasPreviousPage: Bool
    }

    var data: [JobView]
    var pagination: Pagination
}

/// Strong ETags from a 64-bit FNV-1a hash of the body.
enum ETag {
    static func of(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { raw in
            for byte in raw {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// `If-None-Match` may list several tags, or `*`; weak comparison as RFC 9110 §13.1.2 says.
    static func matches(_ header: String, _ etag: String) -> Bool {
        if header == etag { return true }   // what a poller sends back, as it was given
        if HeaderText.trimmed(header) == "*" { return true }
        return header.split(separator: ",").contains { candidate in
            var tag = HeaderText.trimmed(candidate)
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == etag
        }
    }
}
