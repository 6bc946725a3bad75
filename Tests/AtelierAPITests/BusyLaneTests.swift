import AtelierAPI
import AtelierAPITestSupport
import AtelierTestSupport
import AtelierLanes
import Foundation
import XCTest

/// Costly request work runs in bounded lanes (``ServerLanes``). With every place and the whole
/// line of the probes lane taken, an upload is refused at once — `503 BusyError` with
/// `Retry-After`, nothing stored, the connection closed without reading the body — while work that needs no probe goes on as before: `/health`,
/// a job without an image, its poll and its event stream. A freed lane takes uploads again.
/// (The places are taken with ``WorkLane/hold()``, not by requests that happen to be slow.)
final class BusyLaneTests: APITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.lanes.probes = ServerLanes.Limits(concurrency: 1, queue: 1)
    }

    func testAFullProbesLaneRefusesUploadsAtOnceAndNothingElse() async throws {
        let lane = server.lanes.probes
        let full = try await Self.fill(lane)
        XCTAssertEqual(lane.load.running, 1)
        XCTAssertEqual(lane.load.waiting, 1)

        let (form, type) = multipart([("kind", "echo")], image: TestImages.png(width: 64, height: 48))
        let refused = try await request(.POST, "/v1/jobs", body: form, contentType: type)
        try assertError(refused, status: 503, name: "BusyError")
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertTrue(refused.text.contains("busy with image probes"), refused.text)
        let stored = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(stored, 0, "nothing stored for the refused upload")

        // Refused from its headers: the answer closes the connection, and the server does not
        // wait for (or read) the rest of the body — here 1 MB announced, 1 KB sent.
        let port = Int(baseURL.split(separator: ":").last!)!
        let upload = try RawHTTPConnection(port: port)
        upload.send("POST /v1/jobs HTTP/1.1\r\nHost: test\r\nX-App-Token: \(token)\r\n"
                    + "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 1000000\r\n\r\n")
        upload.send(String(repeating: "x", count: 1024))
        let answer = upload.read(until: "}")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 503"), answer)
        XCTAssertTrue(answer.lowercased().contains("connection: close"), answer)
        XCTAssertTrue(answer.lowercased().contains("retry-after: 1"), answer)
        XCTAssertTrue(upload.waitForClose(), "the connection is closed without the rest of the body")

        try await XCTAssertEqualAsync(try await request(.GET, "/health", token: .some(nil)).status, 200)
        let id = try await createJob(kind: "noop")
        let poll = try await request(.GET, "/v1/jobs/\(id)")
        XCTAssertEqual(poll.status, 200, "a poll needs no lane")
        let metrics = try await request(.GET, "/metrics", token: .some(nil))
        XCTAssertTrue(metrics.text.contains(#"atelier_lane_refused{lane="image probes"} 2"#), metrics.text)

        try await full.release()
        let (again, againType) = multipart([("kind", "echo")], image: TestImages.png(width: 64, height: 48))
        try await XCTAssertEqualAsync(try await request(.POST, "/v1/jobs", body: again, contentType: againType).status, 200,
                       "the freed lane takes uploads again")
    }

    /// Sign-in checks its password in the passwords lane: full, the sign-in is a 503 at once
    /// (and the refused attempt is not a wrong password).
    func testAFullPasswordsLaneRefusesSignInAtOnce() async throws {
        let full = try await Self.fill(server.lanes.passwords)
        let body = Data(#"{"email": "nobody@example.com", "password": "password123"}"#.utf8)
        let refused = try await request(.POST, "/api/auth/login", token: .some(nil), body: body, contentType: "application/json")
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertNotNil(refused.header("Retry-After"))
        try await full.release()
        let answered = try await request(.POST, "/api/auth/login", token: .some(nil), body: body, contentType: "application/json")
        XCTAssertEqual(answered.status, 401, "with room again, an unknown email is checked and refused: \(answered.text)")
    }

    /// Takes every place of `lane` and its whole line: the places with holds, the line with
    /// waiters that give their place back as soon as they get it. (They used to keep it until
    /// the test released them in the order it had started them; the lane serves its line in the
    /// order the tasks reached it, which is not that one, so the test could wait for a waiter
    /// still in line while the ones holding places waited for the test: CI hung there.)
    static func fill(_ lane: WorkLane) async throws -> FullLane {
        var holds: [WorkLane.Hold] = []
        for _ in 0..<lane.concurrency { holds.append(try await lane.hold()) }
        let waiting = (0..<lane.queueLimit).map { _ in Task { try await lane.hold().release() } }
        while lane.load.waiting < lane.queueLimit { try await Task.sleep(for: .milliseconds(1)) }
        return FullLane(holds: holds, waiting: waiting)
    }

    struct FullLane {
        let holds: [WorkLane.Hold]
        let waiting: [Task<Void, any Error>]

        func release() async throws {
            for hold in holds { hold.release() }
            for task in waiting { try await task.value }
        }
    }
}

