import Foundation
import JWTKit

/// Which app an access token was issued by, and so where it may be used (`aud`): the fleet
/// app's sign-in, the Learn Assistant's, the operator console's. Each app's own routes accept
/// only its own tokens (the fleet app's refresh renews only fleet tokens); the core API (`/v1`)
/// accepts the fleet's and Learn's; the console's never leave the console.
package enum AccessAudience: String, Sendable, CaseIterable {
    case fleet = "atelier-fleet"
    case learn = "atelier-learn"
    case console = "atelier-console"

    /// The audiences the core API accepts: apps' users acting on their own jobs.
    package static let coreAPI: Set<AccessAudience> = [.fleet, .learn]
}

/// The claims of an access token: who (`sub`, the user id), as what (`role`), which token
/// (`jti`, what logout revokes), issued and expiring (`iat`, `exp`, epoch seconds), by whom and
/// for which app (`iss` atelier, `aud` an ``AccessAudience``), and when its session began
/// (`auth_time`, the sign-in: a refresh keeps it, and no session outlives the maximum age from it).
package struct AccessClaims: JWTPayload, Equatable {
    package var sub: SubjectClaim
    package var role: String
    package var jti: IDClaim
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim
    /// Absent from tokens issued before issue 29: ``AccessTokens/verify(_:audiences:)`` refuses those.
    package var iss: IssuerClaim?
    package var aud: AudienceClaim?
    package var authTime: Int?

    enum CodingKeys: String, CodingKey {
        case sub, role, jti, iat, exp, iss, aud
        case authTime = "auth_time"
    }

    package static let issuer = "atelier"

    package var userID: UUID? { UUID(uuidString: sub.value) }
    package var tokenID: UUID? { UUID(uuidString: jti.value) }
    package var expiresAt: Date { exp.value }
    /// When the session began: `auth_time`, or `iat` for a token issued without it.
    package var signedInAt: Date { authTime.map { Date(timeIntervalSince1970: Double($0)) } ?? iat.value }
    /// The app the token was issued for; nil when it names none of ours.
    package var audience: AccessAudience? {
        guard iss?.value == Self.issuer, let aud, aud.value.count == 1 else { return nil }
        return AccessAudience(rawValue: aud.value[0])
    }

    package func verify(using algorithm: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
    }
}
