import AtelierQueue
import Hummingbird

/// While PostgreSQL cannot be reached, requests answer `503` within `limit` instead of waiting
/// in the connection pool's queue until it comes back (the pool retries its connections and
/// holds every request meanwhile). The process's LISTEN connection tells when the database went
/// away: while it is up, requests run as they are, at no cost; while it is down, each request
/// gets `limit` to finish — one that does (a blob download, a database that just came back)
/// answers as usual, one that does not is cancelled and answered `503` with `Retry-After`.
struct DatabaseOutageMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let notifier: Notifier
    var limit: Duration = .seconds(3)

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        if notifier.isListening { return try await next(request, context) }
        let limit = self.limit
        return try await withoutActuallyEscaping(next) { next in
            // The group ends only when both children have, so `next` never outlives this call;
            // a request waiting for a connection gives up as soon as it is cancelled.
            nonisolated(unsafe) let next = next
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await next(request, context) }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw APIError.unavailable("the database is not reachable; try again shortly")
                }
                return response
            }
        }
    }
}
