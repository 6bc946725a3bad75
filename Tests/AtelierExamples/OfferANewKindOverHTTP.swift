import AtelierAPI
import AtelierAPITestSupport
import AtelierJobs
import AtelierTestSupport
import AtelierWorker
import Foundation
import XCTest

/// Offer a new kind over HTTP: the kind's contract (a `JobContract`: what a request must carry,
/// checked into a typed `Payload`), that contract in the API's catalog (`JobKind`), and a handler
/// that decodes the same `Payload` in the worker — the three places `atelier serve` and
/// `atelier work` are wired for every kind (`Sources/AtelierJobs/`, the API's `JobKindCatalog`,
/// `Sources/AtelierHandlers/`). A request the contract refuses is a `400` naming the field,
/// and no job is made.
final class OfferANewKindOverHTTP: APITestCase {
    /// `greeting`: `{"name": "Ada"}` → `{"greeting": "Hello, Ada!"}`.
    struct GreetingJob: JobContract {
        static let kind = "greeting"
        static let image = ImageRule.none

        struct Payload: Codable, Sendable { var name: String }
        struct Result: Codable, Sendable { var greeting: String }

        func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
            guard let name = options["name"]?.string, (1...100).contains(name.count) else {
                throw JobOptionsError(field: "options.name", message: "options.name must be a name of 1–100 characters")
            }
            return Payload(name: name)
        }
    }

    struct GreetingHandler: JobHandler {
        let kind = GreetingJob.kind

        func run(_ context: JobContext) async throws -> JobResult {
            let payload = try context.payload(as: GreetingJob.Payload.self)
            return try .encode(GreetingJob.Result(greeting: "Hello, \(payload.name)!"))
        }
    }

    override var moreKinds: [TestKind] {
        [TestKind(JobKind(GreetingJob()), GreetingHandler())]
    }

    func testTheAPIAcceptsTheKindAndTheWorkerRunsIt() async throws {
        let created = try await send(.POST, "\(baseURL)/v1/jobs",
                                     headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                     body: #"{"kind": "greeting", "options": {"name": "Ada"}}"#)
        XCTAssertEqual(created.status, 200, created.text)
        let done = try await waitForCompletion(try XCTUnwrap(try created.json()["id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        XCTAssertEqual(done["result"] as? [String: String], ["greeting": "Hello, Ada!"])

        let refused = try await send(.POST, "\(baseURL)/v1/jobs",
                                     headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                     body: #"{"kind": "greeting", "options": {"name": ""}}"#)
        XCTAssertEqual(refused.status, 400)
        let error = try refused.json()
        XCTAssertEqual(error["error"] as? String, "ValidationError")
        XCTAssertEqual((error["details"] as? [String: Any])?["field"] as? String, "options.name")
        try await XCTAssertEqualAsync(try await queue.jobs(.init(kinds: ["greeting"])).total, 1, "the refused request made no job")
    }
}
