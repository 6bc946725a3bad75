import AtelierAPITestSupport
import Foundation
import XCTest

/// Inputs the schema-driven run found on Mondrian's routes: each a 4xx that changes nothing.
final class MondrianEdgeInputTests: APITestCase {
    override var runsWorker: Bool { false }

    func testIndexingAJobThatIsNotAnUploadIs404() async throws {
        let id = try await createJob(kind: "noop")
        let body = try JSONSerialization.data(withJSONObject: ["job_id": id, "image_path": "source/0"])
        try assertError(try await request(.POST, "/index", body: body, contentType: "application/json"), status: 404,
                        name: "NotFoundError")
    }
}
