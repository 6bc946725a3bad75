import AtelierImaging
import AtelierTestSupport
import AtelierVision
import Foundation
import XCTest

/// The `openai` provider against a server replaying the chat-completions protocol: the request
/// it sends, usage passed on, retries on 429/5xx with backoff, and AI_001-type failures for
/// refusals, malformed answers and timeouts.
final class OpenAIProviderTests: XCTestCase {
    var server: ChatCompletionsServer!

    func provider(_ steps: [ChatCompletionsServer.Step], timeout: Duration = .seconds(5), retries: Int = 3) async throws -> OpenAIVisionProvider {
        server = ChatCompletionsServer(steps)
        try await server.start()
        var configuration = OpenAIVisionProvider.Configuration(baseURL: server.baseURL, apiKey: "sk-test", model: "test-vision")
        configuration.timeout = timeout
        configuration.maxRetries = retries
        configuration.backoff = .milliseconds(10)
        return try OpenAIVisionProvider(configuration)
    }

    override func tearDown() { server?.stop() }

    func photo(mimeType: String = "image/jpeg") throws -> VisionInput {
        let image = PixelBuffer(width: 64, height: 48, channels: 3, fill: 140)
        return VisionInput(image: image, encoded: try ImageCodec.encodeJPEG(image), mimeType: mimeType)
    }

    func testACaptionWithUsageAndTheRequestItSent() async throws {
        let provider = try await provider([.caption("A quiet harbour at dusk, boats resting on still water.")])
        let caption = try await provider.caption(try photo())
        XCTAssertEqual(caption.text, "A quiet harbour at dusk, boats resting on still water.")
        XCTAssertEqual(caption.provider, "openai")
        XCTAssertEqual(caption.model, "test-vision")
        XCTAssertEqual(caption.confidence, "high")
        XCTAssertEqual(caption.usage, TokenUsage(prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290))

        let request = try XCTUnwrap(server.received.first)
        XCTAssertEqual(request.headers["authorization"], "Bearer sk-test")
        XCTAssertEqual(request.body["model"] as? String, "test-vision")
        let messages = try XCTUnwrap(request.body["messages"] as? [[String: Any]])
        let parts = try XCTUnwrap(messages.first?["content"] as? [[String: Any]])
        XCTAssertEqual(parts.map { $0["type"] as? String }, ["text", "image_url"])
        let url = try XCTUnwrap((parts[1]["image_url"] as? [String: Any])?["url"] as? String)
        XCTAssertTrue(url.hasPrefix("data:image/jpeg;base64,/9j/"), String(url.prefix(40)))
    }

    func testHEICIsSentAsJPEG() async throws {
        let provider = try await provider([.caption("ok")])
        var input = try photo(mimeType: "image/heic")
        input.encoded = [0, 0, 0, 24, 102, 116, 121, 112]   // whatever was uploaded: not sent as is
        _ = try await provider.caption(input)
        let parts = (server.received.first?.body["messages"] as? [[String: Any]])?.first?["content"] as? [[String: Any]]
        let url = (parts?[1]["image_url"] as? [String: Any])?["url"] as? String ?? ""
        XCTAssertTrue(url.hasPrefix("data:image/jpeg;base64,/9j/"), String(url.prefix(40)))
    }

    func testRateLimitsAndServerErrorsAreRetried() async throws {
        let provider = try await provider([.error(429, "Rate limit reached", retryAfter: 0), .error(503, "overloaded"),
                                           .caption("Second time lucky.")])
        let caption = try await provider.caption(try photo())
        XCTAssertEqual(caption.text, "Second time lucky.")
        XCTAssertEqual(server.requestCount, 3)
    }

    func testPersistentFailuresGiveUpAfterTheRetries() async throws {
        let provider = try await provider(Array(repeating: .error(500, "boom"), count: 5), retries: 2)
        do {
            _ = try await provider.caption(try photo())
            XCTFail("expected a failure")
        } catch {
            // What the provider said is for the log, not for clients.
            XCTAssertTrue("\(error)".contains("after 3 attempts") && "\(error)".contains("HTTP 500"), "\(error)")
            XCTAssertFalse("\(error)".contains("boom"), "\(error)")
            XCTAssertEqual((error as? VisionError)?.detail, "boom")
        }
        XCTAssertEqual(server.requestCount, 3)
    }

    func testARefusalIsNotRetried() async throws {
        let provider = try await provider([.error(401, "Incorrect API key provided"), .caption("never")])
        do {
            _ = try await provider.caption(try photo())
            XCTFail("expected a failure")
        } catch {
            XCTAssertTrue("\(error)".contains("HTTP 401"), "\(error)")
            XCTAssertFalse("\(error)".contains("Incorrect API key"), "\(error)")
            XCTAssertEqual((error as? VisionError)?.detail, "Incorrect API key provided")
        }
        XCTAssertEqual(server.requestCount, 1)
    }

    func testMalformedAnswersFail() async throws {
        for body in ["not json", #"{"choices": []}"#, #"{"choices": [{"message": {"content": "   "}}]}"#, #"{"object": "chat.completion"}"#] {
            let provider = try await provider([.raw(200, body)])
            do {
                _ = try await provider.caption(try photo())
                XCTFail("expected a failure for \(body)")
            } catch {
                XCTAssertTrue("\(error)".contains("no caption"), "\(error)")
            }
            server.stop()
        }
    }

    func testATimeoutFailsAfterItsRetries() async throws {
        let provider = try await provider([.slow(.seconds(3), then: "late"), .slow(.seconds(3), then: "late")],
                                          timeout: .milliseconds(300), retries: 1)
        let started = ContinuousClock.now
        do {
            _ = try await provider.caption(try photo())
            XCTFail("expected a timeout")
        } catch {
            XCTAssertTrue("\(error)".contains("no answer within"), "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2.5), "each attempt is cut at its timeout")
    }

    func testABadBaseURLIsAConfigurationError() {
        XCTAssertThrowsError(try OpenAIVisionProvider(.init(baseURL: "ftp://example", apiKey: nil, model: "m"))) { error in
            XCTAssertTrue("\(error)".contains("ATELIER_OPENAI_BASE_URL"), "\(error)")
        }
    }
}

/// An advisor's prose from the model: the prompt carries the measured facts, the answer must be
/// the JSON asked for.
final class OpenAICritiqueTests: XCTestCase {
    var server: ChatCompletionsServer!

    override func tearDown() { server?.stop() }

    func testTheCritiqueIsAskedWithTheMeasuredScoresAndParsed() async throws {
        server = ChatCompletionsServer([
            .caption(#"Here you are: {"feedback": ["Level horizon, Composition 7/10."], "recommendations": ["Bracket: Lighting 5/10."]} Enjoy."#),
            .caption(#"{"feedback": [], "recommendations": ["x"]}"#),
        ])
        try await server.start()
        var configuration = OpenAIVisionProvider.Configuration(baseURL: server.baseURL, apiKey: nil, model: "m1")
        configuration.maxRetries = 0
        let provider = try OpenAIVisionProvider(configuration)
        let photo = SyntheticPhotos.scene()
        let review = AdvisorReview(advisor: Advisor.named("lange")!, scores: DimensionScores(PhotoReading.read(photo)))
        let request = CritiqueRequest(review: review, caption: "A field under a wide sky.")

        let prose = try await provider.critique(request)
        XCTAssertEqual(prose, AdvisorProse(feedback: ["Level horizon, Composition 7/10."], recommendations: ["Bracket: Lighting 5/10."],
                                           writtenBy: "openai/m1"))
        let sent = try XCTUnwrap(server.received.first?.body)
        let prompt = try XCTUnwrap((sent["messages"] as? [[String: Any]])?.first?["content"] as? String)
        XCTAssertTrue(prompt.contains("Dorothea Lange") && prompt.contains("A field under a wide sky."), prompt)
        for dimension in Dimension.allCases {
            XCTAssertTrue(prompt.contains("- \(dimension.title): \(review.scores[dimension].rounded)/10"), "\(dimension) in \(prompt)")
        }
        XCTAssertTrue(prompt.contains("grade \(review.grade)"))

        do {
            _ = try await provider.critique(request)
            XCTFail("an answer without feedback is not usable")
        } catch {
            XCTAssertTrue(error.description.contains("JSON"), error.description)
        }
        let local = try await LocalVisionProvider().critique(request)
        XCTAssertNil(local, "the local provider writes no prose of its own")
    }
}
