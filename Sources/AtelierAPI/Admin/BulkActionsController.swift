import AtelierJobs
import AtelierQueue
import Foundation
import Hummingbird

/// Jobs by filter, and bulk actions on them, for operators (the `admin` role). The filter is
/// ``JobCriteria`` everywhere: names `kind`, `state`, `queue`, `owner`, `created-after`,
/// `created-before`, `finished-after`, `finished-before`, `error`.
///
/// - `GET /v1/admin/jobs?<filter>&before=<job id>&limit=` → `{"jobs": […], "next_before": id|null}`,
///   newest first (1–500 a page, default 50).
/// - `POST /v1/admin/jobs/{cancel|retry|purge}` with `{"where": {<filter>}, "dry_run": bool,
///   "batch_size": n}`: a dry run answers 200 `{"count", "sample"}` and changes nothing;
///   otherwise 202 with the action, which runs in batches in the background.
/// - `GET /v1/admin/bulk-actions`, `GET /v1/admin/bulk-actions/{id}` → progress and counts;
///   `POST /v1/admin/bulk-actions/{id}/stop` stops it before its next batch.
struct BulkActionsController: Sendable {
    let queue: JobQueue
    let starter: BulkActionStarter
    /// The largest body a `POST` may have.
    static let bodyLimit = 16 * 1024

    func register(on group: RouterGroup<APIRequestContext>) {
        group.get("jobs", use: list)
        group.post("jobs/:action", use: act)
        group.get("bulk-actions", use: actions)
        group.get("bulk-actions/:id", use: show)
        group.post("bulk-actions/:id/stop", use: stop)
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        var query = JobBrowseQuery()
        var pairs: [(String, String)] = []
        for (name, value) in request.uri.queryParameters {
            switch name {
            case "before":
                guard let id = UUID(uuidString: String(value)) else { throw APIError.validation("before must be a job id", field: "before") }
                query.before = id
            case "limit":
                guard let limit = Int(String(value)), (1...500).contains(limit) else {
                    throw APIError.validation("limit must be an integer within 1…500", field: "limit")
                }
                query.limit = limit
            default:
                pairs.append((String(name), String(value)))
            }
        }
        query.criteria = try Self.criteria(pairs)
        let page = try await queue.browse(query)
        let view = AdminJobListView(jobs: page.jobs.map(AdminJobView.init),
                                    nextBefore: page.more ? page.jobs.last?.id.uuidString.lowercased() : nil)
        return JSONResponse.data(try APIJSON.encode(view))
    }

    @Sendable func act(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard let name = context.parameters.get("action"), let action = BulkActionKind(rawValue: name) else {
            throw APIError.notFound("no such bulk action; the actions are cancel, retry and purge")
        }
        let body = try await JSONBody.object(request, limit: Self.bodyLimit,
                                             refusal: APIError.validation("the body must be one JSON object"))
        if let unknown = JSONBody.unknownField(in: body, allowed: ["where", "dry_run", "batch_size"]) {
            throw APIError.validation("unknown field \(unknown); the fields are where, dry_run and batch_size", field: unknown)
        }
        guard let whereObject = body["where"]?.object else {
            throw APIError.validation("where must be an object of filters, e.g. {\"state\": \"failed\"}; {} matches every job", field: "where")
        }
        var pairs: [(String, String)] = []
        for (name, value) in whereObject.sorted(by: { $0.key < $1.key }) {
            guard let text = value.string else { throw APIError.validation("filter \(name) must be a string", field: "where") }
            pairs.append((name, text))
        }
        let criteria = try Self.criteria(pairs)
        let dryRun: Bool
        switch body["dry_run"] {
        case nil: dryRun = false
        case .bool(let value)?: dryRun = value
        default: throw APIError.validation("dry_run must be true or false", field: "dry_run")
        }
        var batchSize = 1_000
        if let value = body["batch_size"] {
            let whole: Int64? = switch value {
            case .integer(let n): n
            case .number(let x) where x.rounded() == x && abs(x) <= 1e9: Int64(x)
            default: nil
            }
            guard let n = whole, (1...10_000).contains(n) else {
                throw APIError.validation("batch_size must be an integer within 1…10000", field: "batch_size")
            }
            batchSize = Int(n)
        }
        if dryRun {
            let preview = try await queue.bulkActions.preview(action, criteria)
            return JSONResponse.data(try APIJSON.encode(BulkPreviewView(
                action: action.rawValue, filter: criteria.text, count: preview.count, sample: preview.sample.map(AdminJobView.init))))
        }
        let started = try await queue.bulkActions.begin(action, criteria, actor: try context.requirePrincipal().owner, batchSize: batchSize)
        starter.start(started.id)
        return JSONResponse.data(try APIJSON.encode(BulkActionView(started)), status: .accepted)
    }

    @Sendable func actions(_ request: Request, context: APIRequestContext) async throws -> Response {
        let list = try await queue.bulkActions.list(limit: 100)
        return JSONResponse.data(try APIJSON.encode(["bulk_actions": list.map(BulkActionView.init)]))
    }

    @Sendable func show(_ request: Request, context: APIRequestContext) async throws -> Response {
        JSONResponse.data(try APIJSON.encode(BulkActionView(try await queue.bulkActions.find(id: try Self.id(context)))))
    }

    @Sendable func stop(_ request: Request, context: APIRequestContext) async throws -> Response {
        let action = try await queue.bulkActions.stop(id: try Self.id(context), actor: try context.requirePrincipal().owner)
        return JSONResponse.data(try APIJSON.encode(BulkActionView(action)))
    }

    /// The filter's terms as the API takes them: the names exactly (no other case), a state list
    /// without spaces, a time as a duration ago or an ISO 8601 UTC time to the second — what
    /// openapi.yaml says (`FilterStates`, `FilterTime`), so the document and the server refuse the
    /// same requests. The CLI and the console read the same terms more leniently (``JobCriteria``).
    static func criteria(_ pairs: [(String, String)]) throws -> JobCriteria {
        for (name, value) in pairs {
            guard JobCriteria.names.contains(name) else {
                throw APIError.validation("unknown filter \(name); filters are \(JobCriteria.names.joined(separator: ", "))", field: name)
            }
            guard value.unicodeScalars.count <= JobCriteria.maxValueLength, !value.contains("\u{0}") else {
                throw APIError.validation("\(name) is longer than \(JobCriteria.maxValueLength) characters or holds a NUL character", field: name)
            }
            let pattern: String? = switch name {
            case "state": Self.statesPattern
            case "created-after", "created-before", "finished-after", "finished-before": Self.timePattern
            default: nil
            }
            if let pattern, let regex = try? Regex(pattern), (try? regex.wholeMatch(in: value)) == nil {
                throw APIError.validation(name == "state"
                    ? "state must be a comma-separated list of queued, running, succeeded, failed, cancelled"
                    : "\(name) must be a duration ago (90m, 12h, 7d) or a UTC time such as 2026-11-25T10:00:00Z", field: name)
            }
        }
        return try JobCriteria(pairs: pairs)
    }

    /// openapi.yaml's `FilterStates` and `FilterTime` patterns (``ServiceEndpointTests`` holds the two to them).
    static let statesPattern = "^((queued|running|succeeded|failed|cancelled)(,(queued|running|succeeded|failed|cancelled))*)?$"
    static let timePattern = "^([0-9]{1,4}(s|m|h|d)|(20[0-9]{2}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))|20(0[048]|[2468][048]|[13579][26])-02-29)T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z)?$"

    static func id(_ context: APIRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw APIError.notFound("no bulk action with that id")
        }
        return id
    }
}

/// A job in the operators' list: what the queue knows of it, without its payload or result.
struct AdminJobView: Encodable {
    var id: String
    var kind: String
    var queue: String
    var state: String
    var owner: String
    var priority: Int
    var attempt: Int
    var maxAttempts: Int
    @NullWhenAbsent var error: String?
    var createdAt: Date
    @NullWhenAbsent var finishedAt: Date?

    init(_ job: Job) {
        id = job.id.uuidString.lowercased()
        kind = job.kind
        queue = job.queue
        state = job.state.rawValue
        owner = job.owner
        priority = job.priority
        attempt = job.attempt
        maxAttempts = job.maxAttempts
        error = job.error
        createdAt = job.createdAt
        finishedAt = job.finishedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, queue, state, owner, priority, attempt, error
        case maxAttempts = "max_attempts", createdAt = "created_at", finishedAt = "finished_at"
    }
}

struct AdminJobListView: Encodable {
    var jobs: [AdminJobView]
    @NullWhenAbsent var nextBefore: String?

    enum CodingKeys: String, CodingKey { case jobs, nextBefore = "next_before" }
}

struct BulkPreviewView: Encodable {
    var action: String
    var filter: String
    var count: Int64
    var sample: [AdminJobView]
}

/// A bulk action as the API shows it.
struct BulkActionView: Encodable {
    var id: Int64
    var action: String
    var filter: String
    var actor: String
    var state: String
    var batchSize: Int
    var matched: Int64
    var acted: Int64
    var stopping: Int64
    var batches: Int
    var startedAt: Date
    var updatedAt: Date
    @NullWhenAbsent var finishedAt: Date?

    init(_ action: BulkAction) {
        id = action.id
        self.action = action.action.rawValue
        filter = action.filter
        actor = action.actor
        state = action.state.rawValue
        batchSize = action.batchSize
        matched = action.matched
        acted = action.acted
        stopping = action.stopping
        batches = action.batches
        startedAt = action.startedAt
        updatedAt = action.updatedAt
        finishedAt = action.finishedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, action, filter, actor, state, matched, acted, stopping, batches
        case batchSize = "batch_size", startedAt = "started_at", updatedAt = "updated_at", finishedAt = "finished_at"
    }
}
