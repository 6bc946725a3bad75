import AtelierAPITestSupport
import Foundation
import XCTest

/// Follow a job's Server-Sent Events and resume after a dropped connection: `GET` the job's
/// `stream_url` with `Accept: text/event-stream`. The stream opens with a `snapshot` (the job as
/// `GET /v1/jobs/{id}` shows it, with no `id:`), then every event with an increasing `id:` —
/// `running`, `progress`, … — and ends after the terminal one (`succeeded`, `failed`,
/// `cancelled`). Reconnect with `Last-Event-ID: <the last id you saw>` and you get a fresh
/// snapshot and only what came after: nothing lost, nothing twice.
final class FollowAJobsEvents: APITestCase {
    func testReadTheStreamDropItAndResumeWithLastEventID() async throws {
        let created = try await send(.POST, "\(baseURL)/v1/jobs",
                                     headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                     body: #"{"kind": "sleep", "options": {"ms": 1000}}"#)
        let job = try created.json()
        let streamURL = try XCTUnwrap(job["stream_url"] as? String)

        // Read until the first progress event, then hang up.
        let firstPart = try await readEvents(streamURL, headers: ["X-App-Token": token, "Accept": "text/event-stream"],
                                             until: { $0.name == "progress" })
        XCTAssertEqual(firstPart.first?.name, "snapshot")
        XCTAssertNil(firstPart.first?.id, "the snapshot does not move the resume point")
        XCTAssertEqual(firstPart.last?.name, "progress")
        struct Progress: Decodable { var progress: Int; var step: String }
        let progress = try XCTUnwrap(firstPart.last).decode(Progress.self)
        XCTAssertEqual(progress.step, "sleeping")
        XCTAssertTrue((1...100).contains(progress.progress))
        let lastSeen = try XCTUnwrap(firstPart.last?.id)

        // Reconnect from there and read to the end.
        let rest = try await readEvents(streamURL, headers: ["X-App-Token": token, "Accept": "text/event-stream",
                                                             "Last-Event-ID": lastSeen])
        XCTAssertEqual(rest.first?.name, "snapshot")
        XCTAssertEqual(rest.last?.name, "succeeded", "the stream ends after the terminal event")

        // Together the two parts are the job's whole history, in order, each event once.
        let seen = (firstPart.dropFirst() + rest.dropFirst()).compactMap { $0.id.flatMap(Int64.init) }
        let history = try await queue.events(jobID: try XCTUnwrap(UUID(uuidString: try XCTUnwrap(job["id"] as? String))))
        XCTAssertEqual(seen, history.map(\.id))
    }
}
