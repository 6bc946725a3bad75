import AtelierAPI
import AtelierAPITestSupport
import AtelierTestSupport
import AtelierImaging
import AtelierQueue
import Foundation
import XCTest

/// `ATELIER_ANONYMOUS_APPS=caricature`: the Caricature app as printed sends no credential, and its
/// routes are the core jobs API — so `/v1/jobs…` serves such requests under `anonymous:caricature`,
/// while search, documents and operator routes still need a credential and a wrong token is
/// still refused.
final class CaricatureAnonymousTests: APITestCase {
    override var sendsToken: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.anonymousApps = ["caricature"]
    }

    func testTheAppsStylizeFlowWithoutACredential() async throws {
        let photo = Data(try ImageCodec.encodeJPEG(PixelBuffer(width: 160, height: 120, channels: 3, fill: 140), quality: 90))
        let (body, type) = multipart([("style_id", "cartoon")], image: photo, filename: "image.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let download = try await request(.GET, try XCTUnwrap(done["result_url"] as? String))
        XCTAssertEqual(download.status, 200)
        let job = try await db.queue.job(id: try XCTUnwrap(UUID(uuidString: id)))
        XCTAssertEqual(job.owner, "anonymous:caricature")

        // Another caller's job is not the anonymous owner's.
        let mine = try await createJob(kind: "noop", token: .some(token))
        try assertError(try await request(.GET, "/v1/jobs/\(mine)"), status: 404, name: "NotFoundError")
        // A wrong token is refused; the rest of /v1 still needs a credential.
        try assertError(try await request(.GET, "/v1/jobs", token: .some("not-a-token")), status: 401, name: "AuthenticationError")
        try assertError(try await request(.POST, "/v1/search", body: Data(#"{"query": "sky"}"#.utf8), contentType: "application/json"),
                        status: 401, name: "AuthenticationError")
        try assertError(try await request(.GET, "/v1/documents"), status: 401, name: "AuthenticationError")
        try assertError(try await request(.GET, "/v1/admin/queue"), status: 401, name: "AuthenticationError")
    }

    /// Callers without a credential share their owner, so a key would be shared too: one caller's
    /// `Idempotency-Key` or `unique` returned another's job (with its result URLs), and a chosen key
    /// let one pre-empt another. Both are refused without a credential, and nothing is made.
    func testKeysNeedACredential() async throws {
        let body = try JSONSerialization.data(withJSONObject: ["kind": "noop"])
        let keyed = try await request(.POST, "/v1/jobs", headers: [("Idempotency-Key", "photo-1")], body: body, contentType: "application/json")
        try assertError(keyed, status: 400, name: "ValidationError")
        XCTAssertEqual((try keyed.json()["details"] as? [String: Any])?["field"] as? String, "Idempotency-Key")
        XCTAssertTrue(keyed.text.contains("needs a credential"), keyed.text)
        let unique = try JSONSerialization.data(withJSONObject: ["kind": "noop", "unique": ["key": "photo-1"]])
        let uniqued = try await request(.POST, "/v1/jobs", body: unique, contentType: "application/json")
        try assertError(uniqued, status: 400, name: "ValidationError")
        XCTAssertEqual((try uniqued.json()["details"] as? [String: Any])?["field"] as? String, "unique")
        let made = try await db.queue.client.query("SELECT count(*)::int FROM jobs WHERE owner = 'anonymous:caricature'")
        for try await count in made.decode(Int.self) { XCTAssertEqual(count, 0, "a refused request makes no job") }
        // With a credential both work as always.
        let withToken = try await request(.POST, "/v1/jobs", token: .some(token), headers: [("Idempotency-Key", "photo-1")],
                                          body: body, contentType: "application/json")
        XCTAssertEqual(withToken.status, 200, withToken.text)
        let uniqueWithToken = try await request(.POST, "/v1/jobs", token: .some(token), body: unique, contentType: "application/json")
        XCTAssertEqual(uniqueWithToken.status, 200, uniqueWithToken.text)
    }

    /// Every anonymous Caricature client is the one owner `anonymous:caricature`, so none may
    /// list, cancel or delete: one client's job is safe from another, who can still create and
    /// read their own by id. With a credential the same routes work as always.
    func testAnonymousClientsCannotListCancelOrDeleteEachOthersJobs() async throws {
        let body = try JSONSerialization.data(withJSONObject: ["kind": "sleep", "options": ["ms": 60_000]])
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: "application/json")
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs/\(id)").status, 200, "read by id")
        let list = try await request(.GET, "/v1/jobs")
        try assertError(list, status: 401, name: "AuthenticationError")
        XCTAssertTrue(list.text.contains("listing jobs needs a credential"), list.text)
        try assertError(try await request(.POST, "/v1/jobs/\(id)/cancel"), status: 401, name: "AuthenticationError")
        try assertError(try await request(.DELETE, "/v1/jobs/\(id)"), status: 401, name: "AuthenticationError")
        let job = try await db.queue.job(id: try XCTUnwrap(UUID(uuidString: id)))
        XCTAssertFalse(job.state.isFinished, "the job was not cancelled: \(job.state)")
        // A credential's own jobs: listed and cancelled as always.
        let mine = try await createJob(kind: "sleep", options: ["ms": 60_000], token: .some(token))
        try await XCTAssertEqualAsync(try await request(.GET, "/v1/jobs", token: .some(token)).status, 200)
        try await XCTAssertEqualAsync(try await request(.DELETE, "/v1/jobs/\(mine)", token: .some(token)).status, 202)
        _ = try await db.queue.cancel(id: try XCTUnwrap(UUID(uuidString: id)), owner: "anonymous:caricature", reason: "test over")
    }
}

