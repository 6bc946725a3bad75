import Foundation

/// One turn of the conversation so far, as the app sends it.
struct ChatTurn: Sendable, Equatable {
    static let roles: Set<String> = ["user", "assistant"]
    var role: String
    var content: String
}

/// A knowledge point the answer may draw on, with how close it is to the message (0…1).
struct ChatSource: Sendable, Equatable {
    var id: UUID
    var question: String
    var answer: String
    var similarity: Double
}

/// Writes the Learn Assistant's chat answer from the message, the conversation so far and the
/// user's closest notes (at most three, each at least 0.6 similar; possibly none).
protocol ChatProvider: Sendable {
    /// `local` or `openai`, for logs and docs.
    var name: String { get }
    func reply(to message: String, history: [ChatTurn], sources: [ChatSource]) async throws(ChatFailure) -> String
}

/// The provider did not give an answer; `detail` (its own words) is logged, never shown.
struct ChatFailure: Error, Sendable {
    var reason: String
    var detail: String?
}
