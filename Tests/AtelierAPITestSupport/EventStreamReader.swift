import AsyncHTTPClient
import Foundation
import NIOCore
import XCTest

/// One Server-Sent Event as a client sees it.
package struct ServerSentEvent: Equatable {
    package var id: String?
    package var name: String?
    package var data: String

    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(data.utf8))
    }
}

extension APITestCase {
    /// Reads a whole event stream (the server ends it after the job's last event) and parses
    /// its events and comments the way an EventSource does.
    package func readEventStream(_ path: String, lastEventID: String? = nil, token: String?? = .none,
                         file: StaticString = #filePath, line: UInt = #line) async throws -> (events: [ServerSentEvent], comments: [String]) {
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : baseURL + path)
        let credential: String? = switch token {
        case .none: sendsToken ? self.token : nil
        case .some(let explicit): explicit
        }
        if let credential { request.headers.add(name: "X-App-Token", value: credential) }
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await http.execute(request, timeout: .seconds(30))
        XCTAssertEqual(response.status.code, 200, file: file, line: line)
        XCTAssertEqual(response.headers.first(name: "Content-Type"), "text/event-stream; charset=utf-8", file: file, line: line)
        var text = ""
        for try await chunk in response.body { text += String(buffer: chunk) }
        return Self.parseEventStream(text)
    }

    package static func parseEventStream(_ text: String) -> (events: [ServerSentEvent], comments: [String]) {
        var events: [ServerSentEvent] = []
        var comments: [String] = []
        for block in text.components(separatedBy: "\n\n") where !block.isEmpty {
            var event = ServerSentEvent(id: nil, name: nil, data: "")
            var isEvent = false
            for line in block.split(separator: "\n") {
                if line.hasPrefix(":") { comments.append(String(line)); continue }
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)); isEvent = true }
                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)); isEvent = true }
                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)); isEvent = true }
            }
            if isEvent { events.append(event) }
        }
        return (events, comments)
    }
}
