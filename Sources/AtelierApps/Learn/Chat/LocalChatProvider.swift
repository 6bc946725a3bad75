import Foundation

/// The chat answer without a language model: the user's closest note quoted as it is, the other
/// sources named, and a plain statement that no model wrote it. With no note close enough it
/// says so. Honest by construction — it never pretends to understand the question.
struct LocalChatProvider: ChatProvider {
    let name = "local"

    static let signature = "(Atelier's local responder quoted your notes; no language model wrote this answer.)"

    func reply(to message: String, history: [ChatTurn], sources: [ChatSource]) async throws(ChatFailure) -> String {
        guard let best = sources.first else {
            return "None of your notes is close enough to this question to answer from (no note reached similarity 0.6). "
                + Self.signature
        }
        var text = "From your notes — \u{201C}\(best.question)\u{201D}: \(best.answer)"
        let others = sources.dropFirst()
        if !others.isEmpty {
            text += "\n\nRelated notes: " + others.map { "\u{201C}\($0.question)\u{201D}" }.joined(separator: "; ") + "."
        }
        return text + "\n\n" + Self.signature
    }
}
