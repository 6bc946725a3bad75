import Foundation
import JWTKit

/// The claims of an access token: who (`sub`, the user id), as what (`role`), which token
/// (`jti`, what logout revokes), issued and expiring (`iat`, `exp`, epoch seconds).
public struct AccessClaims: JWTPayload, Equatable {
    public var sub: SubjectClaim
    public var role: String
    public var jti: IDClaim
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim

    public var userID: UUID? { UUID(uuidString: sub.value) }
    public var tokenID: UUID? { UUID(uuidString: jti.value) }
    public var expiresAt: Date { exp.value }

    public func verify(using algorithm: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
    }
}
