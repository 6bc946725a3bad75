import AtelierVision
import Foundation

/// The chat answer from any OpenAI-compatible chat-completions endpoint (DeepSeek, OpenAI, a
/// local server): a system message with the user's notes (or the fact that none is close
/// enough), the conversation so far, then the message.
struct OpenAIChatProvider: ChatProvider {
    let name = "openai"
    let client: ChatCompletionsClient

    /// How many earlier turns go with the message (the app sends its whole history).
    static let maxHistory = 20

    init(_ configuration: ChatCompletionsClient.Configuration) throws(VisionError) {
        client = try ChatCompletionsClient(configuration, role: "the chat provider", settingPrefix: "ATELIER_CHAT")
    }

    func reply(to message: String, history: [ChatTurn], sources: [ChatSource]) async throws(ChatFailure) -> String {
        let body: Data
        do {
            body = try client.body(messages: Self.messages(message, history: history, sources: sources), maxTokens: 800)
        } catch {
            throw ChatFailure(reason: "the chat request could not be written", detail: "\(error)")
        }
        let data: Data
        do {
            data = try await client.complete(body)
        } catch {
            throw ChatFailure(reason: error.description, detail: error.detail)
        }
        guard let answer = try? JSONDecoder().decode(ChatCompletionsClient.Answer.self, from: data), let text = answer.text else {
            throw ChatFailure(reason: "the chat provider's answer has no text (expected choices[0].message.content)")
        }
        return text
    }

    static func messages(_ message: String, history: [ChatTurn], sources: [ChatSource]) -> [[String: Any]] {
        var system = "You are a study assistant. Answer the user's question from their own notes below; "
            + "when the notes do not cover something, say so before adding anything of your own. Be concise.\n\n"
        if sources.isEmpty {
            system += "None of the user's notes is close enough to this question. Say so first."
        } else {
            system += "The user's notes, closest first:\n"
            for (index, source) in sources.enumerated() {
                system += "\(index + 1). Q: \(source.question)\n   A: \(source.answer)\n"
            }
        }
        return [["role": "system", "content": system]]
            + history.suffix(maxHistory).map { ["role": $0.role, "content": $0.content] }
            + [["role": "user", "content": message]]
    }
}
