import Hummingbird

/// Answers the requests that may become long-lived event streams in a task of their own.
///
/// A Swift task keeps the memory its deepest call ever needed for as long as it lives, and an
/// HTTP/1 connection is one task: after the middleware, the router and a database read, every
/// idle connection kept kilobytes it would never use again (docs/benchmarks/api.md, second
/// pass: idle streams). A stream's request is therefore answered in a child task, which ends
/// (and frees that memory) when the response is ready; the stream's body then runs on the
/// connection's task, whose calls stay shallow. Other requests are answered in place: a child
/// task costs about as much CPU as the rest of a poll.
struct OwnTaskResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: Sendable {
    typealias Context = Inner.Context
    let inner: Inner
    let inOwnTask: @Sendable (_ path: String) -> Bool

    func respond(to request: Request, context: Context) async throws -> Response {
        guard inOwnTask(request.uri.path) else { return try await inner.respond(to: request, context: context) }
        let inner = self.inner
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask { try await inner.respond(to: request, context: context) }
            return try await group.next()!
        }
    }
}
