import AtelierAPI
import AtelierAPITestSupport
import AtelierTestSupport
import AtelierEmbeddings
import Foundation
import NIOHTTP1
import XCTest

/// Knowledge points (docs/clients.md §5) over HTTP with the real model: create → indexed by a job →
/// found by meaning with the defaults (top 3, similarity ≥ 0.6); an edit re-indexes (the last
/// text wins); delete removes the vector too; owners are isolated; bad input is named.
final class DocumentsAPITests: APITestCase {
    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(SearchAPITests.model) }

    override func setUp() async throws {
        guard SearchAPITests.model != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model")
        }
        try await super.setUp()
    }

    func send(_ method: HTTPMethod, _ path: String, _ object: [String: Any], token: String?? = .none) async throws -> Reply {
        try await request(method, path, token: token, body: try JSONSerialization.data(withJSONObject: object),
                          contentType: "application/json")
    }

    func create(_ question: String, _ answer: String) async throws -> [String: Any] {
        let reply = try await send(.POST, "/v1/documents", ["question": question, "answer": answer, "metadata": ["deck": "help", "ok": true]])
        XCTAssertEqual(reply.status, 201, reply.text)
        let body = try reply.json()
        let job = try XCTUnwrap(body["index_job_id"] as? String)
        let done = try await waitForCompletion(job)
        XCTAssertEqual(done["status"] as? String, "succeeded", "\(done)")
        return body
    }

    func testCreateSearchEditDelete() async throws {
        let reset = try await create("How do I reset my password?", "Open Settings, tap Account, then Reset Password.")
        _ = try await create("How long do refunds take?", "Refunds arrive within five business days.")
        _ = try await create("Can I export photos at full resolution?", "Yes: File, Export, Original.")
        let id = try XCTUnwrap(reset["id"] as? String)
        XCTAssertEqual((reset["metadata"] as? [String: Any])?["ok"] as? Bool, true, "metadata passes through as JSON")

        let shown = try await request(.GET, "/v1/documents/\(id)").json()
        XCTAssertEqual(shown["indexed"] as? Bool, true)
        let listed = try await request(.GET, "/v1/documents?limit=2").json()
        XCTAssertEqual((listed["data"] as? [Any])?.count, 2)
        XCTAssertEqual((listed["pagination"] as? [String: Any])?["total"] as? Int, 3)

        var found = try await send(.POST, "/v1/documents/search", ["query": "I forgot my password"]).json()
        var results = try XCTUnwrap(found["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 1, "only the close match passes 0.6: \(found)")
        XCTAssertEqual((results.first?["document"] as? [String: Any])?["id"] as? String, id)
        XCTAssertGreaterThanOrEqual(results.first?["similarity"] as? Double ?? 0, 0.6)

        // Edit: re-indexed with the new text.
        let edited = try await send(.PUT, "/v1/documents/\(id)", ["answer": "Ask your administrator to reset it."])
        XCTAssertEqual(edited.status, 200, edited.text)
        let job = try XCTUnwrap(try edited.json()["index_job_id"] as? String)
        _ = try await waitForCompletion(job)
        let text = try await db.scalar("SELECT text FROM indexed_items WHERE source_key = \("document:" + id)", as: String.self)
        XCTAssertTrue(text.hasSuffix("Ask your administrator to reset it."), text)

        // Another owner sees nothing.
        let bob = try await AppTokens(database: db.queue.database).create(name: "bob").secret
        let bobs = try await send(.POST, "/v1/documents/search", ["query": "I forgot my password"], token: bob).json()
        XCTAssertEqual((bobs["results"] as? [Any])?.count, 0)
        let bobShow = try await request(.GET, "/v1/documents/\(id)", token: bob)
        XCTAssertEqual(bobShow.status, 404)
        let bobDelete = try await request(.DELETE, "/v1/documents/\(id)", token: bob)
        XCTAssertEqual(bobDelete.status, 404)

        // Delete: the document and its vector go together.
        let deleted = try await request(.DELETE, "/v1/documents/\(id)")
        XCTAssertEqual(deleted.status, 204)
        let vectors = try await db.scalar("SELECT count(*)::int FROM indexed_items WHERE source_key = \("document:" + id)", as: Int.self)
        XCTAssertEqual(vectors, 0)
        found = try await send(.POST, "/v1/documents/search", ["query": "I forgot my password", "min_similarity": 0]).json()
        results = try XCTUnwrap(found["results"] as? [[String: Any]])
        XCTAssertFalse(results.contains { ($0["document"] as? [String: Any])?["id"] as? String == id })
        let gone = try await request(.GET, "/v1/documents/\(id)")
        XCTAssertEqual(gone.status, 404)
    }

    func testAnIndexJobForADeletedDocumentStoresNothing() async throws {
        // Create and delete at once: whether the job runs before or after the delete, no vector stays.
        let reply = try await send(.POST, "/v1/documents", ["question": "Temporary?", "answer": "Yes."])
        let body = try reply.json()
        let id = try XCTUnwrap(body["id"] as? String)
        _ = try await request(.DELETE, "/v1/documents/\(id)")
        let done = try await waitForCompletion(try XCTUnwrap(body["index_job_id"] as? String))
        XCTAssertEqual(done["status"] as? String, "succeeded")
        let vectors = try await db.scalar("SELECT count(*)::int FROM indexed_items", as: Int.self)
        XCTAssertEqual(vectors, 0, "no orphan vector")
    }

    func testBadDocumentsAreNamed() async throws {
        let cases: [([String: Any], String)] = [
            (["answer": "a"], "question"),
            (["question": "q"], "answer"),
            (["question": " ", "answer": "a"], "question"),
            (["question": "q", "answer": String(repeating: "a", count: 8001)], "answer"),
            // Counted as the document's maxLength counts: code points as sent, blanks included
            // (schemathesis found 8,000 a's behind blanks accepted), and "\r\n" as two.
            (["question": "q", "answer": "\n\r " + String(repeating: "a", count: 7998)], "answer"),
            (["question": "q", "answer": String(repeating: "\r\n", count: 2000) + String(repeating: "a", count: 4001)], "answer"),
            (["question": "q", "answer": "a", "collection": "a b"], "collection"),
            (["question": "q", "answer": "a", "metadata": [1, 2]], "metadata"),
            (["question": "q", "answer": "a", "owner": "mallory"], "owner"),
        ]
        for (object, field) in cases {
            let reply = try await send(.POST, "/v1/documents", object)
            try assertError(reply, status: 400, name: "ValidationError")
            XCTAssertEqual(try (reply.json()["details"] as? [String: String])?["field"], field, reply.text)
        }
        let malformed = try await request(.GET, "/v1/documents/not-a-uuid")
        XCTAssertEqual(malformed.status, 404)
        let count = try await db.scalar("SELECT count(*)::int FROM documents", as: Int.self)
        XCTAssertEqual(count, 0)
    }
}

/// A document's index job passes the owner's quotas like any job, before the document is
/// written: past the limit of jobs waiting or running, creating or editing a document is a 429
/// and stores nothing.
final class DocumentQuotaTests: APITestCase {
    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(SearchAPITests.model) }
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.maxActiveJobsPerOwner = 2
    }

    override func setUp() async throws {
        guard SearchAPITests.model != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model")
        }
        try await super.setUp()
    }

    func testDocumentsPastTheActiveJobsQuotaAreRefusedAndNotStored() async throws {
        func send(_ method: HTTPMethod, _ path: String, _ object: [String: Any]) async throws -> Reply {
            try await request(method, path, body: try JSONSerialization.data(withJSONObject: object), contentType: "application/json")
        }
        let first = try await send(.POST, "/v1/documents", ["question": "One?", "answer": "The first."])
        XCTAssertEqual(first.status, 201, first.text)
        try await XCTAssertEqualAsync(try await send(.POST, "/v1/documents", ["question": "Two?", "answer": "The second."]).status, 201)
        let third = try await send(.POST, "/v1/documents", ["question": "Three?", "answer": "The third."])
        try assertError(third, status: 429, name: "QuotaExceededError")
        let id = try XCTUnwrap(try first.json()["id"] as? String)
        let edit = try await send(.PUT, "/v1/documents/\(id)", ["answer": "Changed."])
        try assertError(edit, status: 429, name: "QuotaExceededError")
        let documents = try await db.scalar("SELECT count(*)::int FROM documents", as: Int.self)
        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(documents, 2, "the refused document was not stored")
        XCTAssertEqual(jobs, 2, "nor its index job")
        let kept = try await request(.GET, "/v1/documents/\(id)")
        XCTAssertEqual(try kept.json()["answer"] as? String, "The first.", "the refused edit changed nothing")
    }
}

