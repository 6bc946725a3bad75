import AtelierAccounts
import Foundation

/// What stands for a user's access token where the API keys things by credential (its
/// principal's `tokenHash`: the rate limit's bucket, the registry of open event streams):
/// `access:<jti>:<user id>`. Unlike an app token's SHA-256 it says which token and whose, so
/// ``StreamRevoker`` can end the streams of a logged-out token or a disabled user from memory,
/// and never mistakes them for app tokens that are gone.
package enum AccessTokenKey {
    static let prefix = "access:"

    package static func make(_ claims: AccessClaims) -> String {
        prefix + claims.jti.value + ":" + claims.sub.value
    }

    /// (token id, user id) of a key made by ``make(_:)``; nil for an app token's hash.
    static func parse(_ key: String) -> (tokenID: UUID, userID: UUID)? {
        guard key.hasPrefix(prefix) else { return nil }
        let parts = key.dropFirst(prefix.count).split(separator: ":")
        guard parts.count == 2, let token = UUID(uuidString: String(parts[0])), let user = UUID(uuidString: String(parts[1])) else { return nil }
        return (token, user)
    }
}
