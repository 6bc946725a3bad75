import AsyncHTTPClient
import AtelierAPITestSupport
import AtelierDatabase
import AtelierStorage
import AtelierTestSupport
import Foundation
import NIOCore
import XCTest

/// An upload whose enqueue was committed but never answered — the database's host vanished
/// between the two — keeps its input. The job exists and runs; removing its folder on the error
/// would lose its input, or, once it ran, its result (`ops/cluster` found a succeeded job whose
/// result was gone). Only a refusal proves no job was created (`JobIntake.certainlyNotCreated`);
/// a folder whose job does not exist is the orphan sweep's.
final class UnansweredEnqueueTests: APITestCase {
    private var silencer: DatabaseSilencer!

    override var runsWorker: Bool { false }

    /// The API reaches the database through the silencer, on one connection: the second upload's
    /// statements go where the first one's went.
    override func apiDatabase(_ url: DatabaseURL) throws -> (url: DatabaseURL, connections: Int) {
        silencer = try DatabaseSilencer(url)
        return (silencer.url, 1)
    }

    override func tearDown() async throws {
        try await super.tearDown()
        silencer?.stop()
    }

    func testAnUploadWhoseEnqueueGotNoAnswerKeepsItsInput() async throws {
        let (body, type) = multipart([("kind", "echo")], image: TestImages.png())
        // The first upload is answered: the connection has the enqueue prepared and the token known.
        let first = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(first.status, 200, first.text)

        silencer.silenceAnswers()
        var upload = HTTPClientRequest(url: baseURL + "/v1/jobs")
        upload.method = .POST
        upload.headers.add(name: "X-App-Token", value: token)
        upload.headers.add(name: "Content-Type", value: type)
        upload.body = .bytes(ByteBuffer(bytes: body))
        let second = Task { [http, upload] in try await http!.execute(upload, timeout: .seconds(60)).status.code }
        try await db.eventually("the second upload's job is committed") {
            try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self) == 2
        }
        silencer.cut()
        let status = try await second.value
        XCTAssertGreaterThanOrEqual(status, 500, "the API could not learn whether the job was created")

        let id = try await db.scalar("SELECT id FROM jobs ORDER BY created_at DESC, id DESC LIMIT 1", as: UUID.self)
        let folder = blobRoot.appendingPathComponent("blobs").appendingPathComponent(BlobKey.jobFolder(id))
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        XCTAssertFalse(kept.isEmpty, "the input of the job that was created is still there")
    }
}
