import AtelierAPI
import Hummingbird

/// The fleet app's facade (docs/clients.md §6): its sign-in routes under `/api/auth` — login with
/// email and password, the current user, token renewal, logout — in its own error shape.
struct FleetApp: APIApp {
    func register(on router: Router<APIRequestContext>, server: APIServer) throws {
        FleetAuthController(accounts: server.accounts, limits: server.loginLimits, limiter: server.limiter).register(on: router)
    }
}
