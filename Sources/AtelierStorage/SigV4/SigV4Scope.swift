import Foundation

/// When and where a signature is valid: the instant (`20261123T101500Z`, sent as `X-Amz-Date`)
/// and the credential scope (`20261123/us-east-1/s3/aws4_request`), the day, region and service
/// the signing key is derived for.
package struct SigV4Scope: Sendable, Equatable {
    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    package let timestamp: String
    package let region: String
    package let service: String

    package init(date: Date, region: String, service: String = "s3") {
        self.timestamp = Self.timestamp(date)
        self.region = region
        self.service = service
    }

    /// `yyyyMMdd`, the first part of the scope.
    package var day: Substring { timestamp.prefix(8) }

    /// `DAY/REGION/SERVICE/aws4_request`.
    package var text: String { "\(day)/\(region)/\(service)/aws4_request" }

    /// What `X-Amz-Credential` (and the Authorization header's `Credential=`) carries.
    package func credential(_ credentials: SigV4Credentials) -> String {
        "\(credentials.accessKeyID)/\(text)"
    }

    /// The string a signature is computed over (step 2 of SigV4): the algorithm, the instant,
    /// the scope and the hex SHA-256 of the canonical request.
    package func stringToSign(_ canonical: CanonicalRequest) -> String {
        "AWS4-HMAC-SHA256\n\(timestamp)\n\(text)\n\(SigV4Hex.sha256(canonical.text))"
    }

    /// Formats `date` in UTC without Foundation's date formatters (locale-free, thread-safe).
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
