import Foundation

/// Signs one request with an `Authorization` header (SigV4, as S3 wants it): adds `x-amz-date`
/// and `x-amz-content-sha256` (the payload's hex SHA-256, which the server checks against the
/// body it receives), and signs `host` with every header given.
package struct HeaderSigner: Sendable {
    package let credentials: SigV4Credentials
    package let region: String
    package let service: String

    package init(credentials: SigV4Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    package struct Signed: Sendable, Equatable {
        package var canonicalRequest: CanonicalRequest
        package var stringToSign: String
        /// The headers to send: those given, `host`, `x-amz-date`, `x-amz-content-sha256` and
        /// `authorization`, in that order.
        package var headers: [(String, String)]
        package var authorization: String

        package static func == (a: Signed, b: Signed) -> Bool {
            a.canonicalRequest == b.canonicalRequest && a.stringToSign == b.stringToSign && a.authorization == b.authorization
                && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
        }
    }

    /// `host` is what the Host header will say (`name` or `name:port` when the port is not the
    /// scheme's default); `encodedPath` is the path as sent; `query` holds raw pairs.
    package func sign(method: String, host: String, encodedPath: String, query: [(String, String)] = [],
                     headers: [(String, String)] = [], payloadHash: String, date: Date) -> Signed {
        let scope = SigV4Scope(date: date, region: region, service: service)
        let all = headers + [("host", host), ("x-amz-content-sha256", payloadHash), ("x-amz-date", scope.timestamp)]
        let canonical = CanonicalRequest(method: method, encodedPath: encodedPath, query: query, headers: all, payloadHash: payloadHash)
        let stringToSign = scope.stringToSign(canonical)
        let signature = SigningKey(secret: credentials.secretAccessKey, scope: scope).signature(stringToSign)
        let authorization = "AWS4-HMAC-SHA256 Credential=\(scope.credential(credentials)), "
            + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
        return Signed(canonicalRequest: canonical, stringToSign: stringToSign,
                      headers: headers + [("host", host), ("x-amz-date", scope.timestamp),
                                          ("x-amz-content-sha256", payloadHash), ("authorization", authorization)],
                      authorization: authorization)
    }

    /// The hex SHA-256 of a payload, for `x-amz-content-sha256`.
    package static func payloadHash(_ body: Data) -> String {
        body.isEmpty ? SigV4Hex.emptyPayload : SigV4Hex.sha256(body)
    }
}
