import Foundation

/// Where the S3-compatible store is and how to reach it (`ATELIER_S3_*`, read by the executable).
public struct S3Configuration: Sendable {
    /// `ATELIER_S3_ENDPOINT`: the store's base URL as this process reaches it, e.g.
    /// `http://127.0.0.1:8333` or `https://s3.eu-west-3.amazonaws.com`.
    public var endpoint: String
    /// `ATELIER_S3_BUCKET`.
    public var bucket: String
    /// `ATELIER_S3_REGION` (default `us-east-1`): part of every signature's scope.
    public var region: String
    /// `ATELIER_S3_ACCESS_KEY_ID`, `ATELIER_S3_SECRET_ACCESS_KEY`.
    public var credentials: SigV4Credentials
    /// `ATELIER_S3_PATH_STYLE` (default true): `ENDPOINT/BUCKET/KEY`; false: `BUCKET.HOST/KEY`
    /// (virtual-hosted, as AWS prefers).
    public var pathStyle: Bool
    /// `ATELIER_S3_PUBLIC_ENDPOINT`: the base URL clients reach the store by, when it differs
    /// from `endpoint` (the store has another name inside the cluster). Pre-signed URLs are
    /// signed for, and point at, this one.
    public var publicEndpoint: String?
    /// Every key is stored under this prefix (e.g. `t-1234/`); empty for the whole bucket. The
    /// tests give each test its own.
    public var keyPrefix: String
    /// Time limit of one attempt of one request.
    public var requestTimeout: Duration
    public var retries: S3RetryPolicy

    public init(endpoint: String, bucket: String, region: String = "us-east-1", credentials: SigV4Credentials,
                pathStyle: Bool = true, publicEndpoint: String? = nil, keyPrefix: String = "",
                requestTimeout: Duration = .seconds(30), retries: S3RetryPolicy = S3RetryPolicy()) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.credentials = credentials
        self.pathStyle = pathStyle
        self.publicEndpoint = publicEndpoint
        self.keyPrefix = keyPrefix
        self.requestTimeout = requestTimeout
        self.retries = retries
    }

    /// Each setting checked, with a message naming it.
    func validated() throws(StorageError) -> (endpoint: S3Endpoint, publicEndpoint: S3Endpoint) {
        guard Self.isBucketName(bucket) else {
            throw .configuration("ATELIER_S3_BUCKET must be a bucket name (3–63 lower-case letters, digits, '.', '-'), got '\(bucket.prefix(80))'")
        }
        guard !region.isEmpty, region.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "/") }) else {
            throw .configuration("ATELIER_S3_REGION must be a region name like us-east-1, got '\(region.prefix(80))'")
        }
        guard !credentials.accessKeyID.isEmpty, !credentials.secretAccessKey.isEmpty else {
            throw .configuration("ATELIER_S3_ACCESS_KEY_ID and ATELIER_S3_SECRET_ACCESS_KEY must both be set for the s3 blob store")
        }
        guard keyPrefix.isEmpty || (keyPrefix.hasSuffix("/") && (try? BlobKey(String(keyPrefix.dropLast()))) != nil) else {
            throw .configuration("the key prefix must be a blob key followed by '/', got '\(keyPrefix.prefix(80))'")
        }
        let base = try S3Endpoint(endpoint, setting: "ATELIER_S3_ENDPOINT")
        let visible = try publicEndpoint.map { url throws(StorageError) in try S3Endpoint(url, setting: "ATELIER_S3_PUBLIC_ENDPOINT") } ?? base
        return (base, visible)
    }

    static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last,
              first != UInt8(ascii: "."), first != UInt8(ascii: "-"), last != UInt8(ascii: "."), last != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }
}
