import Crypto
import Foundation

/// What the accounts' tables store of a secret a client holds (a refresh token, a spent Apple
/// identity token): its SHA-256 in lower-case hex, never the secret.
enum SecretDigest {
    static func hex(_ secret: String) -> String {
        hex(Data(secret.utf8))
    }

    static func hex(_ secret: Data) -> String {
        SHA256.hash(data: secret).map { String(format: "%02x", $0) }.joined()
    }
}
