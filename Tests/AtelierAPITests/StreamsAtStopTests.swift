import AtelierAPI
import AtelierAPITestSupport
import Foundation
import XCTest

/// The server's stop ends the event streams it serves instead of waiting for their clients to
/// leave (an app may follow a job for hours): the client sees its stream end and resumes
/// elsewhere with `Last-Event-ID`. Before, one open stream kept `atelier serve` running after
/// SIGTERM for as long as its client stayed.
final class StreamsAtStopTests: APITestCase {
    override var runsWorker: Bool { false }

    /// No keep-alive comment during the test: a stream left open says nothing, and the raw
    /// connection's read times out instead of being fed.
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.sseKeepAlive = .seconds(3600)
    }

    func testTheStopEndsAnOpenEventStream() async throws {
        let created = try await request(.POST, "/v1/jobs", body: Data(#"{"kind":"noop"}"#.utf8), contentType: "application/json")
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)

        let port = Int(baseURL.split(separator: ":").last!)!
        let stream = try RawHTTPConnection(port: port, readTimeout: 20)
        stream.send("GET /v1/jobs/\(id)/events HTTP/1.1\r\nHost: test\r\nX-App-Token: \(token)\r\nAccept: text/event-stream\r\n\r\n")
        let opened = stream.read(until: "event: snapshot")
        XCTAssertTrue(opened.hasPrefix("HTTP/1.1 200"), opened)

        await beginStop()
        XCTAssertTrue(stream.waitForClose(), "the stream (its job still queued) ends when the server stops")
    }
}
