import Foundation

/// Pre-signed URLs (SigV4 in the query string): anyone holding the URL may send that one
/// request until `X-Amz-Date + X-Amz-Expires`, with no credential of their own. Only `host` is
/// signed and the payload is `UNSIGNED-PAYLOAD`. The parameters are written as botocore writes
/// them — the operation's own (`response-content-type` …) first, then the `X-Amz-*` ones — so
/// equal inputs give byte-equal URLs.
package struct QueryPresigner: Sendable {
    package let credentials: SigV4Credentials
    package let region: String
    package let service: String

    /// What SigV4 allows: 1 second to 7 days.
    package static let maximumExpiry = 604_800

    package init(credentials: SigV4Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The query string (without `?`) of a URL pre-signed at `date` for `expires` seconds
    /// (clamped to 1…7 days). `parameters` are the operation's raw pairs.
    package func query(method: String = "GET", host: String, encodedPath: String, parameters: [(String, String)] = [],
                      date: Date, expires: Int) -> String {
        let scope = SigV4Scope(date: date, region: region, service: service)
        let auth: [(String, String)] = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", scope.credential(credentials)),
            ("X-Amz-Date", scope.timestamp),
            ("X-Amz-Expires", String(min(max(expires, 1), Self.maximumExpiry))),
            ("X-Amz-SignedHeaders", "host"),
        ]
        let canonical = CanonicalRequest(method: method, encodedPath: encodedPath, query: parameters + auth,
                                         headers: [("host", host)], payloadHash: "UNSIGNED-PAYLOAD")
        let signature = SigningKey(secret: credentials.secretAccessKey, scope: scope).signature(scope.stringToSign(canonical))
        return (parameters + auth + [("X-Amz-Signature", signature)])
            .map { "\(CanonicalRequest.encode($0.0))=\(CanonicalRequest.encode($0.1))" }
            .joined(separator: "&")
    }
}
