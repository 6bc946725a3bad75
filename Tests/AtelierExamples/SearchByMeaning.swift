import AtelierAPITestSupport
import AtelierEmbeddings
import Foundation
import XCTest

/// Search by meaning: an `index` job embeds a photo's caption (or a text) with the MiniLM model
/// and stores it under your owner; `POST /v1/search` embeds the query and answers your nearest
/// items, most similar first — found by what they mean, not by shared words. Runs with the real
/// model from `ATELIER_MODEL_DIR` (./ops/test installs it).
final class SearchByMeaning: APITestCase {
    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(TestModel.encoder) }

    override func setUp() async throws {
        guard TestModel.encoder != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the examples with ./ops/test, which installs the model")
        }
        try await super.setUp()
    }

    func testIndexTwoCaptionedPhotosAndFindTheRightOneFirst() async throws {
        for (name, caption) in [("cat.png", "A grey cat asleep on a sunny windowsill"),
                                ("bike.png", "A red bicycle leaning against a brick wall")] {
            let (form, contentType) = multipart([("kind", "index"), ("caption", caption), ("image_path", "photos/\(name)")],
                                                image: TestImages.png(), filename: name)
            let created = try await send(.POST, "\(baseURL)/v1/jobs", headers: ["X-App-Token": token, "Content-Type": contentType],
                                         body: form)
            let indexed = try await waitForCompletion(try XCTUnwrap(try created.json()["id"] as? String))
            XCTAssertEqual(indexed["status"] as? String, "succeeded", "\(indexed)")
        }

        let found = try await send(.POST, "\(baseURL)/v1/search",
                                   headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                   body: #"{"query": "a sleeping kitten", "top_k": 2}"#)
        XCTAssertEqual(found.status, 200, found.text)
        let results = try XCTUnwrap(try found.json()["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["image_path"] as? String }, ["photos/cat.png", "photos/bike.png"])
        XCTAssertEqual(results.first?["caption"] as? String, "A grey cat asleep on a sunny windowsill")
        let similarities = results.compactMap { $0["similarity"] as? Double }
        XCTAssertEqual(similarities.count, 2)
        XCTAssertGreaterThan(similarities.first ?? 0, similarities.last ?? 1, "a kitten is nearer the cat than the bicycle")

        let bike = try await send(.POST, "\(baseURL)/v1/search",
                                  headers: ["X-App-Token": token, "Content-Type": "application/json"],
                                  body: #"{"query": "a bike parked outside", "top_k": 1}"#).json()
        XCTAssertEqual((bike["results"] as? [[String: Any]])?.first?["image_path"] as? String, "photos/bike.png")
    }
}
