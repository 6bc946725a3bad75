import AsyncHTTPClient
import AtelierAPI
import AtelierAPITestSupport
import Foundation
import NIOCore
import XCTest

/// `GET /v1/jobs/{id}/events`: live events, replay from Last-Event-ID, the end of the stream.
final class EventStreamTests: APITestCase {
    func readStream(_ id: String, lastEventID: String? = nil) async throws -> (events: [ServerSentEvent], comments: [String]) {
        try await readEventStream("/v1/jobs/\(id)/events", lastEventID: lastEventID)
    }

    func testLiveEventsThenReplayFromLastEventID() async throws {
        let id = try await createJob(kind: "sleep", options: ["ms": 1_500])
        let live = try await readStream(id)
        let names = live.events.compactMap(\.name)
        XCTAssertEqual(names.first, "snapshot", "the stream opens with the job as it is")
        XCTAssertNil(live.events.first?.id, "the snapshot has no id: it does not move the resume point")
        XCTAssertEqual(names.last, "succeeded", "the stream ends after the terminal event")
        XCTAssertTrue(names.contains("running"))
        XCTAssertTrue(names.contains("progress"), "sleep reports progress: \(names)")
        let ids = live.events.compactMap { $0.id.flatMap(Int64.init) }
        XCTAssertEqual(ids, ids.sorted(), "event ids increase")
        XCTAssertEqual(ids.count, live.events.count - 1)

        // Resume after the first event: the rest, in order, and nothing before it.
        let resumeAfter = try XCTUnwrap(live.events[1].id)
        let replay = try await readStream(id, lastEventID: resumeAfter)
        XCTAssertEqual(replay.events.dropFirst().map(\.id), live.events.dropFirst(2).map(\.id))
        XCTAssertEqual(replay.events.last?.name, "succeeded")

        // Resume after the terminal event: the snapshot, then the stream closes.
        let after = try await readStream(id, lastEventID: live.events.last?.id)
        XCTAssertEqual(after.events.map(\.name), ["snapshot"])
    }

    func testStreamOfAnotherOwnersJobIs404() async throws {
        let id = try await createJob(kind: "noop")
        let bob = try await AtelierAPITestTokens.make(db.queue, name: "bob")
        let reply = try await request(.GET, "/v1/jobs/\(id)/events", token: .some(bob))
        try assertError(reply, status: 404, name: "NotFoundError")
    }
}

final class EventStreamKeepAliveTests: APITestCase {
    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.sseKeepAlive = .seconds(1)
    }

    func testIdleStreamsGetKeepAliveComments() async throws {
        let id = try await createJob(kind: "sleep", options: ["ms": 3_500])
        var request = HTTPClientRequest(url: "\(baseURL)/v1/jobs/\(id)/events")
        request.headers.add(name: "X-App-Token", value: token)
        let response = try await http.execute(request, timeout: .seconds(30))
        var text = ""
        for try await chunk in response.body { text += String(buffer: chunk) }
        XCTAssertTrue(text.contains(": keep-alive\n\n"), text)
        XCTAssertTrue(text.hasSuffix("event: succeeded\ndata: {\"attempt\": 1}\n\n"), text)
    }
}
