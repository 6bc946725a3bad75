import AtelierAPI
import AtelierAPITestSupport
import AtelierEmbeddings
import AtelierImaging
import AtelierQueue
import Foundation
import XCTest

/// The `index` job and `POST /v1/search` over HTTP with the real model: texts and captioned
/// images indexed by jobs, found by meaning, per owner; bad requests named.
final class SearchAPITests: APITestCase {
    static var model: MiniLMEncoder? { TestModel.encoder }

    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(Self.model) }

    override func setUp() async throws {
        guard Self.model != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model")
        }
        try await super.setUp()
    }

    func json(_ object: [String: Any]) -> Data { try! JSONSerialization.data(withJSONObject: object) }

    func index(_ options: [String: Any], token: String?? = .none) async throws -> [String: Any] {
        let created = try await request(.POST, "/v1/jobs", token: token, body: json(["kind": "index", "options": options]),
                                        contentType: "application/json")
        XCTAssertEqual(created.status, 200, created.text)
        let done = try await waitForCompletion(try XCTUnwrap(created.json()["id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        return done
    }

    func search(_ body: [String: Any], token: String?? = .none) async throws -> Reply {
        try await request(.POST, "/v1/search", token: token, body: json(body), contentType: "application/json")
    }

    func testIndexedTextsAreFoundByMeaning() async throws {
        let notes = [
            ("reset", "How do I reset my password? Open Settings, tap Account, then Reset Password."),
            ("export", "To export photos in full resolution, choose File, Export, Original."),
            ("refund", "Refunds are processed within five business days after we receive the item."),
        ]
        for (key, text) in notes {
            let done = try await index(["text": text, "collection": "help", "source_key": key])
            let result = try XCTUnwrap(done["result"] as? [String: Any])
            XCTAssertEqual(result["embedding_dim"] as? Int, 384)
            XCTAssertEqual(result["source_key"] as? String, key)
        }
        let reply = try await search(["query": "I forgot my login password", "top_k": 2, "collection": "help"])
        XCTAssertEqual(reply.status, 200, reply.text)
        let body = try reply.json()
        let results = try XCTUnwrap(body["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(results.first?["source_key"] as? String, "reset", reply.text)
        XCTAssertTrue(results.allSatisfy { $0["thumbnail_url"] == nil && $0["thumbhash"] == nil }, "texts show no photo")
        XCTAssertEqual(body["total"] as? Int, 2)
        let similarities = results.compactMap { $0["similarity"] as? Double }
        XCTAssertTrue(similarities.allSatisfy { (0...1).contains($0) } && similarities == similarities.sorted(by: >))
        // A threshold keeps only close matches (docs/clients.md §5: ≥ 0.6, top 3).
        let close = try await search(["query": "I forgot my login password", "top_k": 3, "min_similarity": 0.6]).json()
        XCTAssertLessThanOrEqual((close["results"] as? [Any])?.count ?? 99, 1)
        // Re-indexing the same source replaces its text.
        _ = try await index(["text": "Passwords can only be changed by an administrator.", "collection": "help", "source_key": "reset"])
        let again = try await search(["query": "who changes passwords", "top_k": 1, "collection": "help"]).json()
        XCTAssertEqual(((again["results"] as? [[String: Any]])?.first?["text"] as? String)?.hasPrefix("Passwords can only"), true)
        let rows = try await db.scalar("SELECT count(*)::int FROM indexed_items", as: Int.self)
        XCTAssertEqual(rows, 3)
    }

    func testACaptionedImageIsIndexedAndOwnersAreIsolated() async throws {
        let photo = Data(try ImageCodec.encodeJPEG(PixelBuffer(width: 64, height: 48, channels: 3, fill: 120)))
        let (body, type) = multipart([("kind", "index"), ("caption", "A grey cat asleep on a sunny windowsill"),
                                      ("image_path", "source/cat.jpg")], image: photo, filename: "cat.jpg", contentType: "image/jpeg")
        let created = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        XCTAssertEqual(created.status, 200, created.text)
        let done = try await waitForCompletion(try XCTUnwrap(created.json()["id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        let found = try await search(["query": "a sleeping kitten", "top_k": 1]).json()
        let first = try XCTUnwrap((found["results"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["image_path"] as? String, "source/cat.jpg")
        XCTAssertEqual(first["caption"] as? String, "A grey cat asleep on a sunny windowsill")
        XCTAssertEqual(first["source_kind"] as? String, "image")
        let thumbnail = try XCTUnwrap(first["thumbnail_url"] as? String, "\(first)")
        let fetched = try await request(.GET, thumbnail, token: .some(nil), headers: [("Accept", "image/jpeg")])
        XCTAssertEqual(fetched.status, 200, fetched.text)
        let hash = [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(first["thumbhash"] as? String, "\(first)"))))
        XCTAssertEqual(ThumbHash.aspectRatio(hash), 4.0 / 3.0, accuracy: 0.1, "the 64 × 48 photo's placeholder")

        let bob = try await AppTokens(database: db.queue.database).create(name: "bob").secret
        let bobs = try await search(["query": "a sleeping kitten", "top_k": 5], token: bob).json()
        XCTAssertEqual((bobs["results"] as? [Any])?.count, 0, "another owner sees nothing")
    }

    func testBadRequestsNameTheField() async throws {
        func post(_ options: [String: Any]) async throws -> Reply {
            try await request(.POST, "/v1/jobs", body: json(["kind": "index", "options": options]), contentType: "application/json")
        }
        let cases: [([String: Any], String)] = [
            ([:], "text"),
            (["text": "   "], "text"),
            (["text": String(repeating: "a", count: 8001)], "text"),
            (["text": "ok", "collection": "no spaces please"], "collection"),
            (["text": "ok", "metadata": "not an object"], "metadata"),
            (["text": "ok", "image_path": "source/a.jpg"], "image_path"),
        ]
        for (options, field) in cases {
            let reply = try await post(options)
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], field, "\(options): \(reply.text)")
        }
        let photo = Data(try ImageCodec.encodeJPEG(PixelBuffer(width: 8, height: 8, channels: 3, fill: 1)))
        let (body, type) = multipart([("kind", "index"), ("caption", "x"), ("image_path", "../../etc/passwd")], image: photo,
                                     filename: "a.jpg", contentType: "image/jpeg")
        let traversal = try await request(.POST, "/v1/jobs", body: body, contentType: type)
        try assertError(traversal, status: 400, name: "ValidationError")
        XCTAssertEqual(try (traversal.json()["details"] as? [String: String])?["field"], "image_path")

        for (search, field) in [(["top_k": 3], "query"), (["query": "x", "top_k": 0], "top_k"),
                                (["query": "x", "min_similarity": 2], "min_similarity"), (["query": "x", "limit": 3], "limit")] as [([String: Any], String)] {
            let reply = try await self.search(search)
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], field, reply.text)
        }
        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(jobs, 0)
    }
}
