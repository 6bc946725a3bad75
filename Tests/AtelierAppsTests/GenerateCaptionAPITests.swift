import AtelierAPI
import AtelierAPITestSupport
import AtelierImaging
import AtelierQueue
import AtelierTestSupport
import AtelierVision
import Foundation
import NIOHTTP1
import XCTest

/// `POST /api/generateCaption` (docs/clients.md §1) against a real server and worker, decoded with the
/// caption app's own `Codable` models (field lists copied from the app team's API document): both response shapes,
/// every error code, the image gone after the job. The app's models and helpers; tests below.
class CaptionAPITestCase: APITestCase {
    // The caption app's models, as in its API documentation.
    struct CaptionRequest: Codable { let imageData: String; let mimeType: String }
    struct CaptionResponse: Codable { let success: Bool; let data: CaptionData; let metadata: ResponseMetadata }
    struct CaptionData: Codable {
        let caption: String; let provider: String; let model: String; let confidence: String
        let usage: TokenUsage?; let processingTime: String; let requestId: String
    }
    struct TokenUsage: Codable {
        let promptTokens: Int; let completionTokens: Int; let totalTokens: Int
        enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens" }
    }
    struct ResponseMetadata: Codable {
        let timestamp: String; let provider: String; let requestId: String; let processingTime: Int; let imageSize: Int; let mimeType: String
    }
    struct ErrorResponse: Codable { let success: Bool; let error: APIErrorDetail }
    struct APIErrorDetail: Codable { let code: String; let message: String; let timestamp: String }

    func photo() throws -> Data {
        var image = PixelBuffer(width: 320, height: 200, channels: 3, fill: 0)
        for y in 0..<200 { for x in 0..<320 {
            let i = (y * 320 + x) * 3
            image.pixels[i] = UInt8(200 - y / 2); image.pixels[i + 1] = UInt8(120 + x / 8); image.pixels[i + 2] = UInt8(60 + (x * y) % 40)
        } }
        return Data(try ImageCodec.encodeJPEG(image, quality: 85))
    }

    func caption(_ body: Data, token: String?? = .none) async throws -> Reply {
        try await request(.POST, "/api/generateCaption", token: token, body: body, contentType: "application/json")
    }

    func body(_ data: Data, mimeType: String = "image/jpeg") throws -> Data {
        try JSONEncoder().encode(CaptionRequest(imageData: data.base64EncodedString(), mimeType: mimeType))
    }

    func assertCaptionError(_ reply: Reply, status: Int, code: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(reply.status, status, reply.text, file: file, line: line)
        let decoded = try JSONDecoder().decode(ErrorResponse.self, from: Data(reply.text.utf8))
        XCTAssertFalse(decoded.success, file: file, line: line)
        XCTAssertEqual(decoded.error.code, code, reply.text, file: file, line: line)
        XCTAssertFalse(decoded.error.message.isEmpty, file: file, line: line)
        XCTAssertTrue(decoded.error.timestamp.hasSuffix("Z") && decoded.error.timestamp.contains("."), decoded.error.timestamp, file: file, line: line)
    }

    func storedFiles() -> [String] {
        let root = blobRoot.appendingPathComponent("blobs")
        let paths = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        return paths.filter { path in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &directory) && !directory.boolValue
        }
    }
}

final class GenerateCaptionAPITests: CaptionAPITestCase {
    func testACaptionDecodesWithTheAppsModelsAndTheImageIsGone() async throws {
        let image = try photo()
        let reply = try await caption(try body(image))
        XCTAssertEqual(reply.status, 200, reply.text)
        let response = try JSONDecoder().decode(CaptionResponse.self, from: Data(reply.text.utf8))
        XCTAssertTrue(response.success)
        XCTAssertGreaterThan(response.data.caption.count, 40)
        XCTAssertEqual(response.data.provider, "atelier-local")
        XCTAssertEqual(response.data.model, "atelier-local-caption-1")
        XCTAssertNil(response.data.usage)
        XCTAssertNotNil(response.data.processingTime.range(of: #"^\d+ms$"#, options: .regularExpression), response.data.processingTime)
        XCTAssertNotNil(response.data.requestId.range(of: #"^req_\d{13}_[a-z0-9]{6}$"#, options: .regularExpression), response.data.requestId)
        XCTAssertEqual(response.metadata.requestId, response.data.requestId)
        XCTAssertEqual(response.metadata.imageSize, image.count)
        XCTAssertEqual(response.metadata.mimeType, "image/jpeg")
        XCTAssertEqual(response.metadata.provider, "atelier-local")
        XCTAssertEqual("\(response.metadata.processingTime)ms", response.data.processingTime)
        XCTAssertNotNil(ISO8601DateFormatter.withMilliseconds.date(from: response.metadata.timestamp), response.metadata.timestamp)
        XCTAssertNotNil(reply.headers.first(name: "X-RateLimit-Limit"))

        // It ran as a high-priority caption job, and nothing of the image is kept.
        let summary = try await db.scalar("SELECT string_agg(kind || ' ' || priority || ' ' || state::text, ';') FROM jobs", as: String.self)
        XCTAssertEqual(summary, "caption \(Priority.interactive) succeeded")
        XCTAssertEqual(storedFiles(), [], "the uploaded image is deleted when the job ends")

        // Same image → same caption.
        let again = try JSONDecoder().decode(CaptionResponse.self, from: Data(try await caption(try body(image)).text.utf8))
        XCTAssertEqual(again.data.caption, response.data.caption)
    }

    func testEveryValidationErrorIsVAL001AndStoresNothing() async throws {
        let image = try photo()
        let cases: [(Data, String)] = [
            (Data("not json".utf8), "bad JSON"),
            (Data(#"{"mimeType": "image/jpeg"}"#.utf8), "missing imageData"),
            (Data(#"{"imageData": "aGVsbG8="}"#.utf8), "missing mimeType"),
            (Data(#"{"imageData": "%%%%", "mimeType": "image/jpeg"}"#.utf8), "bad base64"),
            (try body(image, mimeType: "image/gif"), "unsupported mime"),
            (try body(Data("hello, this is text and not a picture at all".utf8)), "not an image"),
            (try body(image.prefix(300)), "a cut-off JPEG"),
            (try JSONEncoder().encode(CaptionRequest(imageData: String(repeating: "A", count: 5 * 1024 * 1024 + 4), mimeType: "image/jpeg")), "over 5 MB"),
        ]
        for (request, name) in cases {
            let reply = try await caption(request)
            try assertCaptionError(reply, status: 400, code: "VAL_001")
            XCTAssertFalse(reply.text.isEmpty, name)
        }
        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(jobs, 0)
        XCTAssertEqual(storedFiles(), [])
    }

    func testAuthAndMethodErrors() async throws {
        try assertCaptionError(try await caption(try body(try photo()), token: .some(nil)), status: 401, code: "AUTH_001")
        try assertCaptionError(try await caption(try body(try photo()), token: "not-a-token"), status: 401, code: "AUTH_001")
        for method in [HTTPMethod.GET, .PUT, .DELETE, .PATCH] {
            let reply = try await request(method, "/api/generateCaption")
            try assertCaptionError(reply, status: 405, code: "METHOD_001")
            XCTAssertEqual(reply.headers.first(name: "Allow"), "POST")
        }
    }
}

/// The per-IP limit, set low so the test is quick.
final class GenerateCaptionRateLimitTests: CaptionAPITestCase {
    override func configure(_ configuration: inout ServerSettings) { configuration.api.captionRateLimitPerMinute = 3 }

    func testTheFourthRequestInAMinuteIsRATE001() async throws {
        for expected in [2, 1, 0] {
            let reply = try await caption(Data("{}".utf8))
            try assertCaptionError(reply, status: 400, code: "VAL_001")
            XCTAssertEqual(reply.headers.first(name: "X-RateLimit-Limit"), "3")
            XCTAssertEqual(reply.headers.first(name: "X-RateLimit-Remaining"), String(expected))
        }
        let refused = try await caption(try body(try photo()))
        try assertCaptionError(refused, status: 429, code: "RATE_001")
        XCTAssertNotNil(refused.headers.first(name: "Retry-After"))
        XCTAssertNotNil(refused.headers.first(name: "X-RateLimit-Reset"))
        // Another token from the same address is still the same client.
        let bob = try await AppTokens(database: db.queue.database).create(name: "bob").secret
        try assertCaptionError(try await caption(try body(try photo()), token: bob), status: 429, code: "RATE_001")
    }

}

/// No worker runs: the route gives up after its timeout with AI_001, cancels the job and
/// deletes the image.
final class GenerateCaptionTimeoutTests: CaptionAPITestCase {
    override var runsWorker: Bool { false }
    override func configure(_ configuration: inout ServerSettings) { configuration.api.captionTimeout = .seconds(1) }

    func testAProviderThatNeverAnswersIsAI001() async throws {
        let reply = try await caption(try body(try photo()))
        try assertCaptionError(reply, status: 500, code: "AI_001")
        XCTAssertTrue(reply.text.contains("timed out"), reply.text)
        let state = try await db.scalar("SELECT state::text FROM jobs", as: String.self)
        XCTAssertEqual(state, "cancelled")
        XCTAssertEqual(storedFiles(), [])
    }

}

extension ISO8601DateFormatter {
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

/// The `openai` provider end to end: the worker's caption comes from a server replaying the
/// chat-completions protocol; its token usage reaches the app; a provider that keeps failing is AI_001.
final class GenerateCaptionOpenAITests: CaptionAPITestCase {
    static let chat = ChatCompletionsServer(
        [.caption("A dragonfly rests on a thin stem against a soft green background.")]
            + Array(repeating: .error(500, "model crashed"), count: 8))

    override var visionProvider: TestVisionProvider {
        var configuration = OpenAIVisionProvider.Configuration(baseURL: Self.chat.baseURL, apiKey: "sk-test", model: "test-vision")
        configuration.maxRetries = 1
        configuration.backoff = .milliseconds(10)
        return TestVisionProvider(try! OpenAIVisionProvider(configuration))
    }

    override func setUp() async throws {
        if Self.chat.baseURL.isEmpty { try await Self.chat.start() }
        try await super.setUp()
    }

    func testTheModelsCaptionAndUsageThenAI001() async throws {
        let reply = try await caption(try body(try photo()))
        XCTAssertEqual(reply.status, 200, reply.text)
        let response = try JSONDecoder().decode(CaptionResponse.self, from: Data(reply.text.utf8))
        XCTAssertEqual(response.data.caption, "A dragonfly rests on a thin stem against a soft green background.")
        XCTAssertEqual(response.data.provider, "openai")
        XCTAssertEqual(response.data.model, "test-vision")
        XCTAssertEqual(response.data.usage?.promptTokens, 1234)
        XCTAssertEqual(response.data.usage?.totalTokens, 1290)

        let failed = try await caption(try body(try photo()))
        try assertCaptionError(failed, status: 500, code: "AI_001")
        XCTAssertTrue(failed.text.contains("HTTP 500"), failed.text)
        XCTAssertFalse(failed.text.contains("model crashed"), "the provider's own words stay in the log: \(failed.text)")
        XCTAssertEqual(storedFiles(), [], "the image is gone after the last attempt too")
    }

}
