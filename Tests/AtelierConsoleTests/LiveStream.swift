import AsyncHTTPClient
import AtelierAPITestSupport
import Foundation
import NIOCore
import XCTest

/// An open `/admin/live` stream, read one event at a time as an EventSource would (the `retry`
/// line and keep-alive comments are skipped).
struct LiveStream {
    private var chunks: HTTPClientResponse.Body.AsyncIterator
    private var buffer = ""

    init(_ response: HTTPClientResponse) {
        chunks = response.body.makeAsyncIterator()
    }

    /// The next event; fails if the stream ends first.
    mutating func next() async throws -> ServerSentEvent {
        while true {
            while let end = buffer.range(of: "\n\n") {
                let block = String(buffer[..<end.upperBound])
                buffer.removeSubrange(..<end.upperBound)
                if let event = APITestCase.parseEventStream(block).events.first { return event }
            }
            let chunk = try await chunks.next()
            buffer += String(buffer: try XCTUnwrap(chunk, "the live stream ended"))
        }
    }

    /// The first event from now on that satisfies `condition`.
    mutating func next(where condition: (ServerSentEvent) throws -> Bool) async throws -> ServerSentEvent {
        while true {
            let event = try await next()
            if try condition(event) { return event }
        }
    }

    /// A `jobs` frame's rows.
    struct Row: Decodable { var id: String; var state: String; var html: String }
}

extension ConsoleTestCase {
    /// Opens `/admin/live` as a page would, with the page's `show` (``ConsoleFeed/Opening``).
    func openLive(cookie: String, show: String? = nil) async throws -> LiveStream {
        var request = HTTPClientRequest(url: baseURL + "/admin/live" + (show.map { "?show=\($0)" } ?? ""))
        request.headers.add(name: "Cookie", value: cookie)
        let response = try await browser.execute(request, timeout: .seconds(60))
        XCTAssertEqual(response.status.code, 200)
        return LiveStream(response)
    }
}
