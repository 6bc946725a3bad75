import AtelierAPITestSupport
import Foundation
import XCTest

/// A caption job leaves its image in place for a rerun: a worker killed between the caption and
/// the record of its success used to find the image gone ("the input image is gone").
final class CaptionInputTests: APITestCase {
    func testTheCaptionHandlerKeepsItsInputForARerun() async throws {
        let (form, type) = multipart([("kind", "caption")], image: TestImages.png(width: 64, height: 48))
        let created = try await request(.POST, "/v1/jobs", body: form, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let job = try await waitForCompletion(id)
        XCTAssertEqual(job["status"] as? String, "succeeded", "\(job)")
        let folder = blobRoot.appendingPathComponent("blobs/jobs/\(id)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        XCTAssertTrue(files.contains { $0.hasPrefix("input") }, "the input is still there after success: \(files)")
    }
}
