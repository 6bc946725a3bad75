/// What can go wrong with accounts, each with the message a client may be shown.
package enum AccountError: Error, Sendable, Equatable {
    /// Wrong email or wrong password — deliberately one case, so nobody learns which.
    case invalidCredentials
    /// An access or refresh token that is malformed, forged, expired, revoked or rotated away.
    case invalidToken(String)
    /// A request the accounts cannot take (a bad email, a short password, an unknown role).
    case invalidArgument(String)
    /// An email (or Apple account) that already has a user.
    case conflict(String)
    /// No such user.
    case notFound(String)
    /// `ATELIER_JWT_SECRET` is missing or too short.
    case configuration(String)

    package var message: String {
        switch self {
        case .invalidCredentials: return "Email or password incorrect"
        case .invalidToken(let message), .invalidArgument(let message), .conflict(let message),
             .notFound(let message), .configuration(let message):
            return message
        }
    }
}

extension AccountError: CustomStringConvertible {
    package var description: String { message }
}
