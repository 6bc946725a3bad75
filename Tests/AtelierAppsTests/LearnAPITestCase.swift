import AtelierAPI
import AtelierAPITestSupport
import AtelierEmbeddings
import AtelierTestSupport
import Foundation
import NIOHTTP1
import XCTest

/// What the Learn Assistant's API tests share: the app's own structs (written from its API
/// document), users signed in with test-minted Apple tokens, and a real server, worker and model.
class LearnAPITestCase: APITestCase {
    // From the app's document.
    struct KnowledgePoint: Codable {
        let id: String; let userId: String; let question: String; let answer: String
        let createdAt: String; let updatedAt: String; let isInReviewPlan: Bool
    }
    struct PointsResponse: Codable { let points: [KnowledgePoint] }
    struct PointResponse: Codable { let point: KnowledgePoint }
    struct CreatePointRequest: Codable { let question: String; let answer: String; let isInReviewPlan: Bool }
    struct SuccessResponse: Codable { let success: Bool }
    struct Review: Codable {
        struct Point: Codable { let question: String; let answer: String }
        let id: String; let knowledgePointId: String; let reviewNumber: Int; let reviewDate: String
        let completed: Bool; let completedAt: String?; let recallText: String?; let knowledgePoints: Point
    }
    struct ReviewsResponse: Codable { let reviews: [Review] }
    struct ChatMessage: Codable { let role: String; let content: String }
    struct ChatRequest: Codable { let message: String; let history: [ChatMessage] }
    struct ChatResponse: Codable {
        struct Source: Codable { let id: String; let question: String; let answer: String; let similarity: Double }
        let response: String; let sources: [Source]
    }
    struct ErrorResponse: Codable { let error: String }

    var apple: TestAppleKeys!
    override var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(TestModel.encoder) }
    /// Whether the tests need the embedding model (sign-in alone does not).
    var requiresModel: Bool { true }

    override func setUp() async throws {
        guard !requiresModel || TestModel.encoder != nil else {
            throw XCTSkip("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model")
        }
        apple = try await TestAppleKeys()
        try await super.setUp()
    }

    override func tearDown() async throws {
        apple?.remove()
        try await super.tearDown()
    }

    override func configure(_ configuration: inout ServerSettings) {
        configuration.api.appleAudiences = ["com.example.learn"]
        configuration.api.appleKeys = apple.jwksFile.path
        // Retries within the window are answered again; an hour, so no test meets its end.
        configuration.api.refreshReuseWindow = .seconds(3600)
    }

    /// Signs in a new Apple user; their access token.
    func signIn(_ subject: String) async throws -> String {
        struct SignIn: Codable { let identityToken: String; let user: String }
        struct Session: Codable { let accessToken: String }
        let identity = try await apple.identityToken(subject: subject, email: "\(subject)@privaterelay.appleid.com")
        let reply = try await request(.POST, "/api/ios/auth/apple", token: .some(nil),
                                      body: try JSONEncoder().encode(SignIn(identityToken: identity, user: subject)),
                                      contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.text)
        return try JSONDecoder().decode(Session.self, from: reply.body).accessToken
    }

    func call(_ method: HTTPMethod, _ path: String, as bearer: String, body: Data? = nil) async throws -> Reply {
        try await request(method, path, token: .some(nil), headers: [("Authorization", "Bearer " + bearer)], body: body,
                          contentType: body == nil ? nil : "application/json")
    }

    func call(_ method: HTTPMethod, _ path: String, as bearer: String, json: some Encodable) async throws -> Reply {
        try await call(method, path, as: bearer, body: try JSONEncoder().encode(json))
    }

    func expect(_ status: Int, _ method: HTTPMethod, _ path: String, as bearer: String, json: (some Encodable)? = nil as String?,
                file: StaticString = #filePath, line: UInt = #line) async throws {
        let reply = try await call(method, path, as: bearer, body: try json.map { try JSONEncoder().encode($0) })
        XCTAssertEqual(reply.status, status, "\(method) \(path): \(reply.text)", file: file, line: line)
        XCTAssertNoThrow(try JSONDecoder().decode(ErrorResponse.self, from: reply.body), file: file, line: line)
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: Reply, status: Int = 200, file: StaticString = #filePath,
                              line: UInt = #line) throws -> T {
        XCTAssertEqual(reply.status, status, reply.text, file: file, line: line)
        return try JSONDecoder().decode(T.self, from: reply.body)
    }

    /// Waits until every index job of the user's points has run (the points are chat sources then).
    func waitForIndexing(_ owner: String, count: Int) async throws {
        for _ in 0..<600 {
            let done = try await db.scalar("""
                SELECT count(*)::int FROM indexed_items WHERE owner = \(owner) AND collection = 'learn'
                """, as: Int.self)
            if done >= count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("the index jobs did not run")
    }

    func owner(of point: KnowledgePoint) -> String { "user:" + point.userId }
}
