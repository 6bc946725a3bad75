import AtelierAPI
import AtelierQueue
import Hummingbird

/// Runs a console handler and turns whatever it throws into a page: the console's own refusals
/// as they are, the queue's (no such job, not in that state) as 404 and 409, a database outage
/// as 503, anything else as a 500 naming the request id (its details go to the log, never to the page).
enum ConsoleRoute {
    static func answer(_ request: Request, _ context: APIRequestContext,
                       _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as ConsoleError {
            return ConsolePage.error(error, request: request, context: context)
        } catch let error as QueueError {
            if let page = ConsoleError.from(error) { return ConsolePage.error(page, request: request, context: context) }
            return unexpected(error, request, context)
        } catch {
            return unexpected(error, request, context)
        }
    }

    private static func unexpected(_ error: any Error, _ request: Request, _ context: APIRequestContext) -> Response {
        let mapped = ErrorMapping.apiError(for: error, requestID: context.requestID, logger: context.logger)
        let page = mapped.status == .serviceUnavailable
            ? ConsoleError(status: .serviceUnavailable, title: "The database is not answering",
                           message: "The console cannot read the queue right now. It retries on reload; the API and workers recover on their own.")
            : ConsoleError(status: .internalServerError, title: "Something went wrong",
                           message: "The console could not show this page. The server's log has the details under the request id below.")
        return ConsolePage.error(page, request: request, context: context)
    }
}
