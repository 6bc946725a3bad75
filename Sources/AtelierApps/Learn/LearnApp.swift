import AtelierAPI
import Hummingbird

/// The Learn Assistant's facade (docs/clients.md §7), under `/api/ios`: Sign in with Apple and
/// token refresh, with the app's error shape `{"error": "message"}`.
struct LearnApp: APIApp {
    func register(on router: Router<APIRequestContext>, server: APIServer) throws {
        LearnAuthController(accounts: server.accounts).register(on: router)
    }
}
