import Hummingbird
import NIOCore

/// The one way a route reads a whole request body: refused with 413 past `limit` — from
/// Content-Length before reading anything — then, when the client asked with
/// `Expect: 100-continue`, told to send it (``ExpectContinueHandler``). A body that stops
/// arriving is cut off by the connection's idle timeout (`ATELIER_HTTP_IDLE_TIMEOUT`).
package enum RequestBodies {
    package static func collect(_ request: Request, limit: Int) async throws -> ByteBuffer {
        if let text = request.headers[.contentLength] {
            // Digits only; a length too long to be a number is certainly over the limit.
            guard let length = ByteRange.digits(Substring(text)) else {
                throw APIError.validation("Content-Length must be a number of bytes", field: "Content-Length")
            }
            if length > limit { throw APIError.tooLarge(limit: limit) }
        }
        ContinueTickets.shared.release(request.headers[ExpectContinueHandler.ticketField])
        do {
            return try await request.body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.tooLarge(limit: limit)
        }
    }
}
