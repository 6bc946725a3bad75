import AtelierAPI
import AtelierSearch
import Hummingbird

/// The Learn Assistant's facade (docs/clients.md §7), under `/api/ios`: Sign in with Apple and
/// token refresh, knowledge points, spaced review and the chat over the user's notes, with the
/// app's error shape `{"error": "message"}`.
struct LearnApp: APIApp {
    func register(on router: Router<APIRequestContext>, server: APIServer) throws {
        let routes = LearnRoutes(accounts: server.accounts, limiter: server.limiter)
        let documents = DocumentStore(database: server.queue.database, logger: server.logger)
        LearnAuthController(routes: routes, limits: server.loginLimits).register(on: router)
        KnowledgeController(routes: routes, intake: server.intake, documents: documents).register(on: router)
        ReviewsController(routes: routes, reviews: ReviewStore(database: server.queue.database, logger: server.logger)).register(on: router)
        // The executable checked the chat settings at start-up (a bad URL is a start-up error).
        let provider: any ChatProvider = try server.configuration.chatModel.map { try OpenAIChatProvider($0) } ?? LocalChatProvider()
        ChatController(routes: routes, search: server.search, documents: documents, provider: provider, lane: server.lanes.chat)
            .register(on: router)
    }
}
