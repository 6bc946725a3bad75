import AtelierAPI
import AtelierAPITestSupport
import AtelierEmbeddings
import AtelierImaging
import Foundation
import XCTest

/// Mondrian's `POST /search` (docs/clients.md §2) decoded by the app's own `Codable` models (field
/// lists copied from the app team's API document): only indexed images come back, per owner, most similar first.
final class MondrianSearchAPITests: APITestCase {
    // The Mondrian app's models, as in its integration guide.
    struct SearchRequest: Encodable { let query: String; let top_k: Int }
    struct SearchResponse: Decodable { let query: String; let results: [SearchResult]; let total: Int }
    struct SearchResult: Decodable { let id: String; let job_id: String; let image_path: String; let caption: String; let similarity: Double }

    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(TestModel.encoder) }

    override func setUp() async throws {
        guard TestModel.encoder != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model")
        }
        try await super.setUp()
    }

    private func indexImage(caption: String, path: String) async throws -> String {
        let photo = Data(try ImageCodec.encodeJPEG(PixelBuffer(width: 32, height: 24, channels: 3, fill: 90)))
        let (body, type) = multipart([("kind", "index"), ("caption", caption), ("image_path", path)], image: photo,
                                     filename: "photo.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let id = try XCTUnwrap(created.json()["id"] as? String)
        let done = try await waitForCompletion(id)
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        return id
    }

    func testTheAppsSearchResponseDecodesAndHoldsOnlyImages() async throws {
        let sunset = try await indexImage(caption: "Mountain range at golden hour with orange and purple sky", path: "source/peaks.jpg")
        _ = try await indexImage(caption: "A plate of pasta with tomato sauce on a wooden table", path: "source/dinner.jpg")
        let text = try await request(.POST, "/v1/jobs", body: try JSONSerialization.data(withJSONObject: [
            "kind": "index", "options": ["text": "Sunset over mountains with dramatic light, a note without an image"]]),
                                     contentType: "application/json")
        _ = try await waitForCompletion(try XCTUnwrap(text.json()["id"] as? String))

        let reply = try await request(.POST, "/search", body: try JSONEncoder().encode(SearchRequest(query: "sunset over mountains", top_k: 10)),
                                      contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.text)
        let response = try JSONDecoder().decode(SearchResponse.self, from: Data(reply.text.utf8))
        XCTAssertEqual(response.query, "sunset over mountains")
        XCTAssertEqual(response.total, 2, "the text note is not an image: \(reply.text)")
        XCTAssertEqual(response.results.first?.job_id, sunset)
        XCTAssertEqual(response.results.first?.image_path, "source/peaks.jpg")
        XCTAssertEqual(response.results.map(\.similarity), response.results.map(\.similarity).sorted(by: >))
        XCTAssertTrue(response.results.allSatisfy { (0...1).contains($0.similarity) })
        // Beyond the app's fields: each hit's photo as a signed thumbnail, fetched with no token.
        let hits = try XCTUnwrap(try reply.json()["results"] as? [[String: Any]])
        let thumbnail = try XCTUnwrap(hits.first?["thumbnail_url"] as? String, reply.text)
        let image = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/webp")])
        XCTAssertEqual(image.status, 200, image.text)
        XCTAssertEqual(image.header("Content-Type"), "image/webp")
        let info = try ImageCodec.probe([UInt8](image.body))
        XCTAssertEqual([info.width, info.height], [24, 24], "cover of the 32 × 24 photo, never enlarged")
        // And its placeholder, made when the photo was indexed: 4:3 and grey as the photo is.
        let hash = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(hits.first?["thumbhash"] as? String, reply.text))))
        XCTAssertEqual(ThumbHash.aspectRatio(hash), 4.0 / 3.0, accuracy: 0.1)
        let placeholder = try XCTUnwrap(ThumbHash.decode(hash))
        XCTAssertEqual(Double(placeholder.pixels[0]), 90, accuracy: 12, "the photo's grey")

        let bob = try await AppTokens(database: db.queue.database).create(name: "bob").secret
        let bobs = try await request(.POST, "/search", token: bob, body: try JSONEncoder().encode(SearchRequest(query: "sunset", top_k: 5)),
                                     contentType: "application/json")
        XCTAssertEqual(try JSONDecoder().decode(SearchResponse.self, from: Data(bobs.text.utf8)).total, 0, "another owner sees nothing")
    }

    func testAnImageWithoutACaptionIsCaptionedByTheProviderThenFound() async throws {
        var image = PixelBuffer(width: 96, height: 48, channels: 3, fill: 0)
        for i in 0..<(96 * 48) { image.pixels[i * 3] = 30; image.pixels[i * 3 + 1] = 60; image.pixels[i * 3 + 2] = 200 }
        let (body, type) = multipart([("kind", "index"), ("image_path", "source/blue.jpg")], image: Data(try ImageCodec.encodeJPEG(image)),
                                     filename: "blue.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let done = try await waitForCompletion(try XCTUnwrap(created.json()["id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let caption = try XCTUnwrap((done["result"] as? [String: Any])?["caption"] as? String)
        XCTAssertTrue(caption.contains("blue"), caption)   // the local provider names the dominant colour

        let reply = try await request(.POST, "/search", body: try JSONEncoder().encode(SearchRequest(query: "a deep blue picture", top_k: 3)),
                                      contentType: "application/json")
        let response = try JSONDecoder().decode(SearchResponse.self, from: Data(reply.text.utf8))
        XCTAssertEqual(response.results.first?.caption, caption)
        XCTAssertEqual(response.results.first?.image_path, "source/blue.jpg")
    }

    func testBadRequestsAreNamedAndTokensRequired() async throws {
        for (body, field) in [(["top_k": 3], "query"), (["query": "x", "top_k": 101], "top_k"),
                              (["query": "x", "collection": "help"], "collection")] as [([String: Any], String)] {
            let reply = try await request(.POST, "/search", body: try JSONSerialization.data(withJSONObject: body), contentType: "application/json")
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], field, reply.text)
        }
        let anonymous = try await request(.POST, "/search", token: .some(nil), body: Data(#"{"query":"x","top_k":1}"#.utf8),
                                          contentType: "application/json")
        XCTAssertEqual(anonymous.status, 401, anonymous.text)
    }
}
