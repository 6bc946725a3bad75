import Foundation

/// What an `atelier_tokens` notification is about (triggers of the apps' migration line): the app tokens
/// changed (`changed`), one user's access token was revoked (`jti:<id>`), or one user was
/// disabled or enabled (`user:<id>`). Each listener acts on what it names: a logout must not
/// flush every process's app-token cache nor make every stream check ask the database.
package enum TokenNotice: Equatable, Sendable {
    case appTokens
    case accessToken(UUID)
    case user(UUID)

    package init(payload: String) {
        if payload.hasPrefix("jti:"), let id = UUID(uuidString: String(payload.dropFirst(4))) {
            self = .accessToken(id)
        } else if payload.hasPrefix("user:"), let id = UUID(uuidString: String(payload.dropFirst(5))) {
            self = .user(id)
        } else {
            self = .appTokens
        }
    }
}
