import AtelierJobs
import AtelierQueue
import Foundation
import Hummingbird

/// Limits per kind, for operators (the `admin` role), as `atelier limits` sets them:
///
/// - `GET /v1/admin/limits` → `{"limits": [ … ]}`, every kind that has one;
/// - `PUT /v1/admin/limits` with `{"kind", "concurrency"?, "per_owner_concurrency"?, "rate"?,
///   "timeout_s"?}` makes that kind's limits exactly these (a field left out or null: no such
///   limit; only `kind`: none at all) and answers them. Every worker applies them at its next
///   claim. The change is written to the audit log under the user's name.
struct LimitsController: Sendable {
    let queue: JobQueue
    let kinds: JobKindCatalog
    /// The largest body a `PUT` may have.
    static let bodyLimit = 4096

    func register(on group: RouterGroup<APIRequestContext>) {
        group.get("limits", use: list)
        group.put("limits", use: put)
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let limits = try await queue.limits.list()
        return JSONResponse.data(try APIJSON.encode(KindLimitsListView(limits: limits.map(KindLimitsView.init))))
    }

    @Sendable func put(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.object(request, limit: Self.bodyLimit,
                                             refusal: APIError.validation("the body must be one JSON object"))
        let change = try KindLimitsView.change(from: body, kinds: kinds)
        let actor = try context.requirePrincipal().owner
        let saved = try await queue.limits.set(change, actor: actor)
        return JSONResponse.data(try APIJSON.encode(saved.map(KindLimitsView.init) ?? KindLimitsView(kind: change.kind)))
    }
}
