import Crypto
import Foundation

/// The SigV4 signing key (step 3): `HMAC("AWS4" + secret, day)`, then the region, the service
/// and `aws4_request`, each the HMAC of the previous key. It depends on the day, so a key made
/// once serves every request of that day and scope.
struct SigningKey: Sendable {
    let key: SymmetricKey

    init(secret: String, scope: SigV4Scope) {
        var key = SymmetricKey(data: Data("AWS4\(secret)".utf8))
        for part in [String(scope.day), scope.region, scope.service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        self.key = key
    }

    /// The hex signature of a string to sign (step 4).
    func signature(_ stringToSign: String) -> String {
        SigV4Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }
}
