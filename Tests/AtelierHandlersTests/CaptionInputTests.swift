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

    /// `width` and `height` are the photo's, not those of the smaller copy the provider describes
    /// (found by ./ops/cluster with real photos: a 1,088-px photo was reported as 512 px wide).
    func testTheCaptionResultNamesThePhotosOwnSize() async throws {
        let (form, type) = multipart([("kind", "caption")], image: TestImages.png(width: 900, height: 600))
        let created = try await request(.POST, "/v1/jobs", body: form, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(try created.json()["id"] as? String)
        let job = try await waitForCompletion(id)
        let result = try XCTUnwrap(job["result"] as? [String: Any], "\(job)")
        XCTAssertEqual(result["width"] as? Int, 900)
        XCTAssertEqual(result["height"] as? Int, 600)
    }
}
