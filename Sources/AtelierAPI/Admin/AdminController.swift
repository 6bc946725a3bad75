import AtelierQueue
import Foundation
import Hummingbird

/// Operator routes under `/v1/admin`, for users with the `admin` role (``RoleMiddleware``); the
/// browser console builds on them.
///
/// - `GET /v1/admin/queue?minutes=` → jobs by kind and state, each queue's depth and oldest
///   waiting job, finished jobs per minute (the last `minutes`, 1–60, default 5).
struct AdminController: Sendable {
    let queue: JobQueue

    func register(on group: RouterGroup<APIRequestContext>) {
        group.get("queue", use: queueStats)
    }

    @Sendable func queueStats(_ request: Request, context: APIRequestContext) async throws -> Response {
        var minutes = 5
        if let text = request.uri.queryParameters["minutes"] {
            guard let value = Int(text), (1...60).contains(value) else {
                throw APIError.validation("minutes must be an integer within 1…60", field: "minutes")
            }
            minutes = value
        }
        return JSONResponse.data(try QueueStatsView(try await queue.stats(minutes: minutes)).json())
    }
}
