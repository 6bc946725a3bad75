import AtelierAPI
import AtelierAPITestSupport
import AtelierTestSupport
import AtelierVision
import Foundation
import XCTest

/// The chat with `ATELIER_CHAT_PROVIDER=openai`: the answer is the model's (a server replaying
/// the chat-completions protocol), the request carries the user's sources, the history and the
/// message; with no close note the prompt says so; a failing model is a 502 that does not
/// repeat the provider's words.
final class LearnChatOpenAITests: LearnAPITestCase {
    static let chat = ChatCompletionsServer([
        .caption("SwiftUI builds interfaces declaratively, as your note says."),
        .caption("Your notes do not cover bread."),
        .error(400, "secret provider complaint"),
    ])

    override func setUp() async throws {
        if Self.chat.baseURL.isEmpty { try await Self.chat.start() }
        try await super.setUp()
    }

    override func configure(_ configuration: inout ServerSettings) {
        super.configure(&configuration)
        var model = ChatCompletionsClient.Configuration(baseURL: Self.chat.baseURL, apiKey: "sk-chat", model: "deepseek-chat")
        model.maxRetries = 0
        configuration.api.chatModel = model
    }

    func testTheModelAnswersFromTheUsersNotes() async throws {
        let alice = try await signIn("004444.dana.0004")
        let point = try decode(PointResponse.self, try await call(.POST, "/api/ios/knowledge", as: alice, json: CreatePointRequest(
            question: "What is SwiftUI?", answer: "SwiftUI is Apple's declarative framework for building user interfaces.",
            isInReviewPlan: true))).point
        try await waitForIndexing(owner(of: point), count: 1)

        let reply = try decode(ChatResponse.self, try await call(.POST, "/api/ios/chat", as: alice, json: ChatRequest(
            message: "Explain SwiftUI", history: [ChatMessage(role: "user", content: "Earlier question"),
                                                   ChatMessage(role: "assistant", content: "Earlier answer")])))
        XCTAssertEqual(reply.response, "SwiftUI builds interfaces declaratively, as your note says.")
        XCTAssertEqual(reply.sources.map(\.id), [point.id])

        let sent = try XCTUnwrap(Self.chat.received.first)
        XCTAssertEqual(sent.headers["authorization"], "Bearer sk-chat")
        XCTAssertEqual(sent.body["model"] as? String, "deepseek-chat")
        let messages = try XCTUnwrap(sent.body["messages"] as? [[String: Any]])
        XCTAssertEqual(messages.map { $0["role"] as? String }, ["system", "user", "assistant", "user"])
        let system = try XCTUnwrap(messages.first?["content"] as? String)
        XCTAssertTrue(system.contains(point.question) && system.contains(point.answer), system)
        XCTAssertEqual(messages[1]["content"] as? String, "Earlier question")
        XCTAssertEqual(messages.last?["content"] as? String, "Explain SwiftUI")

        let unrelated = try decode(ChatResponse.self, try await call(.POST, "/api/ios/chat", as: alice, json: ChatRequest(
            message: "Recipe for a sourdough loaf with a crisp crust", history: [])))
        XCTAssertEqual(unrelated.sources.count, 0)
        let second = try XCTUnwrap(Self.chat.received.dropFirst().first?.body["messages"] as? [[String: Any]])
        XCTAssertTrue((second.first?["content"] as? String ?? "").contains("None of the user's notes is close enough"))

        let failed = try await call(.POST, "/api/ios/chat", as: alice, json: ChatRequest(message: "Explain SwiftUI", history: []))
        XCTAssertEqual(failed.status, 502, failed.text)
        let error = try JSONDecoder().decode(ErrorResponse.self, from: failed.body).error
        XCTAssertFalse(error.contains("secret provider complaint"), error)
    }
}
