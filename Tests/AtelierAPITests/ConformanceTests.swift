import AtelierAPI
import AtelierAPITestSupport
import Foundation
import NIOHTTP1
import XCTest
import Yams

/// What ./ops/schemathesis found, held here over real HTTP: undeclared methods are 405 with an
/// `Allow` that names what the document declares; text PostgreSQL cannot store (NUL) is a 400
/// naming the field, not a 500.
final class ConformanceTests: APITestCase {
    func testAnUndeclaredMethodIs405WithAllow() async throws {
        let trace = try await request(HTTPMethod.RAW(value: "TRACE"), "/v1/jobs")
        try assertError(trace, status: 405, name: "MethodNotAllowedError")
        XCTAssertEqual(trace.header("Allow"), "GET, POST")

        let options = try await request(.OPTIONS, "/v1/jobs/\(UUID().uuidString.lowercased())")
        try assertError(options, status: 405, name: "MethodNotAllowedError")
        XCTAssertEqual(options.header("Allow"), "GET, DELETE")

        let put = try await request(.PUT, "/health", token: .some(nil))
        XCTAssertEqual(put.status, 405, put.text)
        XCTAssertEqual(put.header("Allow"), "GET")

        // A literal segment wins over a parameter, as in the router: /v1/documents/search is POST only.
        let search = try await request(.GET, "/v1/documents/search")
        XCTAssertEqual(search.status, 405, search.text)
        XCTAssertEqual(search.header("Allow"), "POST")

        // Results keys may hold '/': the route's catch-all.
        let results = try await request(.DELETE, "/results/jobs/x/result.jpg", token: .some(nil))
        XCTAssertEqual(results.status, 405, results.text)
        XCTAssertEqual(results.header("Allow"), "GET, HEAD")

        // The caption API keeps its own shape for every other method (docs/clients.md §1).
        let caption = try await request(HTTPMethod.RAW(value: "TRACE"), "/api/generateCaption")
        XCTAssertEqual(caption.status, 405, caption.text)
        XCTAssertEqual(caption.header("Allow"), "POST")
        XCTAssertEqual((try caption.json()["error"] as? [String: Any])?["code"] as? String, "METHOD_001")

        let nowhere = try await request(HTTPMethod.RAW(value: "TRACE"), "/no/such/path")
        try assertError(nowhere, status: 404, name: "NotFoundError")
        XCTAssertNil(nowhere.header("Allow"))
    }

    /// Each documented path answers an undeclared method with exactly its documented methods.
    func testAllowMatchesTheDocumentForEveryPath() async throws {
        let reply = try await request(.GET, "/openapi.yaml", token: .some(nil))
        let paths = try XCTUnwrap(try Yams.load(yaml: reply.text) as? [String: Any])["paths"] as? [String: Any] ?? [:]
        XCTAssertFalse(paths.isEmpty)
        for (template, item) in paths {
            let declared = Set(((item as? [String: Any]) ?? [:]).keys.map { $0.uppercased() })
                .intersection(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
            let path = template.replacingOccurrences(of: #"\{[^}]+\}"#, with: "00000000-0000-7000-8000-000000000000", options: .regularExpression)
            let reply = try await request(HTTPMethod.RAW(value: "TRACE"), path)
            XCTAssertEqual(reply.status, 405, "TRACE \(template): \(reply.text)")
            let allow = Set((reply.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            XCTAssertEqual(allow, declared, "Allow of \(template)")
        }
    }

    func send(_ method: HTTPMethod, _ path: String, _ json: String) async throws -> Reply {
        try await request(method, path, body: Data(json.utf8), contentType: "application/json")
    }

    func testTextPostgreSQLCannotStoreIsA400() async throws {
        // A NUL in a metadata key was a 500 (jsonb refuses \u0000).
        let key = try await send(.POST, "/v1/documents", #"{"question": "q", "answer": "a", "metadata": {"a\u0000b": 1}}"#)
        try assertError(key, status: 400, name: "ValidationError")
        XCTAssertEqual(try key.json()["details"] as? [String: String], ["field": "metadata"])
        let value = try await send(.POST, "/v1/documents", #"{"question": "q", "answer": "a", "metadata": {"k": ["x\u0000"]}}"#)
        try assertError(value, status: 400, name: "ValidationError")
        let question = try await send(.POST, "/v1/documents", #"{"question": "q\u0000", "answer": "a"}"#)
        try assertError(question, status: 400, name: "ValidationError")
        XCTAssertEqual(try question.json()["details"] as? [String: String], ["field": "question"])
        let list = try await request(.GET, "/v1/documents?collection=a%00b")
        try assertError(list, status: 400, name: "ValidationError")
        let search = try await send(.POST, "/v1/search", #"{"query": "q", "collection": "a\u0000b"}"#)
        try assertError(search, status: 400, name: "ValidationError")
        let documents = try await send(.POST, "/v1/documents/search", #"{"query": "q", "collection": "a\u0000b"}"#)
        try assertError(documents, status: 400, name: "ValidationError")
    }

    func testSearchNumbersAreNotBooleans() async throws {
        // JSON true was taken as top_k 1 and false as min_similarity 0.
        let topK = try await send(.POST, "/v1/search", #"{"query": "q", "top_k": true}"#)
        try assertError(topK, status: 400, name: "ValidationError")
        XCTAssertEqual(try topK.json()["details"] as? [String: String], ["field": "top_k"])
        let minimum = try await send(.POST, "/v1/documents/search", #"{"query": "q", "min_similarity": false}"#)
        try assertError(minimum, status: 400, name: "ValidationError")
        XCTAssertEqual(try minimum.json()["details"] as? [String: String], ["field": "min_similarity"])
    }
}
