/// An access key pair for AWS Signature Version 4 (`ATELIER_S3_ACCESS_KEY_ID`,
/// `ATELIER_S3_SECRET_ACCESS_KEY`). The secret never leaves the process: only HMACs made with
/// it are sent. `description` names the key id alone, so logging the value is safe.
public struct SigV4Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String

    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "SigV4Credentials(\(accessKeyID), secret hidden)" }
}
