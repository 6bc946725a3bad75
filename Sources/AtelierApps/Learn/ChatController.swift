import AtelierAPI
import AtelierSearch
import AtelierJobs
import AtelierLanes
import Foundation
import Hummingbird
import Logging

/// The Learn Assistant's chat over the user's notes (docs/clients.md §7):
/// `POST /api/ios/chat {message, history}` → `{response, sources: [{id, question, answer, similarity}]}`.
/// The message is embedded here (MiniLM), the user's points at least 0.6 similar are searched
/// (top 3, only theirs, only indexed ones), and the configured ``ChatProvider`` writes the answer.
struct ChatController: Sendable {
    let routes: LearnRoutes
    let search: SearchService
    let documents: DocumentStore
    let provider: any ChatProvider
    /// Answers are written within ``ServerLanes/chat``: a paid model's calls are bounded per
    /// process, and past the lane's line a request is refused at once (503, Retry-After).
    let lane: WorkLane

    static let path = "api/ios/chat"
    static let maxMessage = 4000, maxTurns = 100, maxTurn = 8000
    static let topK = 3, minSimilarity = 0.6

    func register(on router: Router<APIRequestContext>) {
        router.post(RouterPath(Self.path)) { request, context in await LearnRoutes.answer(context) { try await chat(request, context) } }
    }

    struct Source: Encodable { var id: String; var question: String; var answer: String; var similarity: Double }
    struct Answer: Encodable { var response: String; var sources: [Source] }

    func chat(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let user = try await routes.user(request)
        // 100 turns of 8,000 characters fit (UTF-8: up to 4 bytes each).
        let object = try await LearnRoutes.object(request, limit: 4 * 1024 * 1024)
        guard let message = try LearnRoutes.text(object, "message", max: Self.maxMessage) else {
            throw LearnError.badRequest("message is required")
        }
        let history = try Self.history(object["history"])
        let sources = try await nearest(message, user: user)
        let provider = self.provider
        let reply: Result<String, ChatFailure> = try await lane.run {
            do throws(ChatFailure) {
                return .success(try await provider.reply(to: message, history: history, sources: sources))
            } catch {
                return .failure(error)
            }
        }
        let response: String
        switch reply {
        case .success(let text):
            response = text
        case .failure(let error):
            context.logger.warning("chat provider failed", metadata: [
                "provider": .string(provider.name), "reason": .string(error.reason), "detail": .string(error.detail ?? "")])
            throw LearnError(status: .badGateway, message: "The assistant could not answer right now; try again")
        }
        return try JSONResponse.encode(Answer(response: response, sources: sources.map {
            Source(id: $0.id.uuidString.lowercased(), question: $0.question, answer: $0.answer, similarity: $0.similarity)
        }))
    }

    /// The user's points closest to `message`, at least ``minSimilarity`` similar, best first.
    func nearest(_ message: String, user: LearnUser) async throws -> [ChatSource] {
        let items: [IndexedItem]
        do {
            items = try await search.nearest(message, owner: user.owner, limit: Self.topK, collection: LearnRoutes.collection,
                                             minSimilarity: Self.minSimilarity)
        } catch let error as APIError where error.status == .serviceUnavailable {
            throw LearnError(status: .serviceUnavailable, message: "Chat is not available on this server (no embedding model)", retryAfter: 60)
        }
        let hits = items.compactMap { item in Document.id(fromSourceKey: item.sourceKey).map { (item, $0) } }
        let found = Dictionary(uniqueKeysWithValues: try await documents.find(ids: hits.map(\.1), owner: user.owner).map { ($0.id, $0) })
        return hits.compactMap { item, id in
            found[id].map { ChatSource(id: id, question: $0.question, answer: $0.answer, similarity: SearchService.rounded(item.similarity)) }
        }
    }

    /// `history`: absent, or an array of `{role: "user"|"assistant", content}`.
    static func history(_ value: JSONValue?) throws -> [ChatTurn] {
        guard let value else { return [] }
        guard let turns = value.array else { throw LearnError.badRequest("history must be an array of {role, content}") }
        guard turns.count <= maxTurns else { throw LearnError.badRequest("history must have at most \(maxTurns) entries") }
        return try turns.map { turn in
            guard let role = turn.object?["role"]?.string, ChatTurn.roles.contains(role),
                  let content = turn.object?["content"]?.string else {
                throw LearnError.badRequest("each history entry must be {role: \"user\" or \"assistant\", content: string}")
            }
            guard content.unicodeScalars.count <= maxTurn, !content.utf8.contains(0) else {
                throw LearnError.badRequest("a history entry's content must be at most \(maxTurn) characters, without NUL")
            }
            return ChatTurn(role: role, content: content)
        }
    }
}
