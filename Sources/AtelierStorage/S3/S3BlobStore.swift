import AsyncHTTPClient
import Foundation
import Logging
import NIOHTTP1

/// Blobs in a bucket of an S3-compatible object store (AWS S3, SeaweedFS, MinIO …), so API and
/// worker processes on different machines share them. Requests are signed with AWS Signature
/// V4 (``HeaderSigner``) and retried on connection errors, 5xx and throttling
/// (``S3RetryPolicy``); a PUT is atomic on the store's side, so a reader sees the whole blob or
/// none. Clients download straight from the store through pre-signed URLs
/// (``presignedURL(for:issued:lifetime:)``), signed for `publicEndpoint` when it is set.
///
/// A "folder" is a key prefix: `jobs/<id>/` holds the objects of one job, and it changes when an
/// object is written into it (its newest `LastModified`).
public struct S3BlobStore: BlobStore {
    public let configuration: S3Configuration
    let transport: S3Transport
    let presigner: QueryPresigner
    let publicEndpoint: S3Endpoint

    /// `client` defaults to ``S3Transport/client``, one per process for every S3 store.
    public init(configuration: S3Configuration, client: HTTPClient? = nil, logger: Logger) throws(StorageError) {
        let (endpoint, publicEndpoint) = try configuration.validated()
        self.configuration = configuration
        self.publicEndpoint = publicEndpoint
        self.presigner = QueryPresigner(credentials: configuration.credentials, region: configuration.region)
        self.transport = S3Transport(client: client ?? S3Transport.client, endpoint: endpoint, bucket: configuration.bucket, pathStyle: configuration.pathStyle,
                                     signer: HeaderSigner(credentials: configuration.credentials, region: configuration.region),
                                     timeout: configuration.requestTimeout, retries: configuration.retries, logger: logger)
    }

    @discardableResult
    public func put(_ data: Data, at key: BlobKey) async throws(StorageError) -> BlobInfo {
        let contentType = ContentTypes.forExtension(key.fileExtension)
        let response = try await send(.init(method: .PUT, key: stored(key.path), headers: [("content-type", contentType)],
                                            body: data, operation: "PUT \(key)"))
        let modified = response.headers.first(name: "date").flatMap(S3Dates.http) ?? Date()
        return BlobInfo(key: key, size: data.count, contentType: contentType,
                        etag: response.headers.first(name: "etag") ?? "\"\(HeaderSigner.payloadHash(data).prefix(32))\"",
                        modifiedAt: modified)
    }

    public func info(_ key: BlobKey) async throws(StorageError) -> BlobInfo? {
        let response = try await send(.init(method: .HEAD, key: stored(key.path), operation: "HEAD \(key)", accepted: [404]))
        guard response.status != 404 else { return nil }
        let headers = response.headers
        let size = headers.first(name: "content-length").flatMap(Int.init) ?? 0
        let modified = headers.first(name: "last-modified").flatMap(S3Dates.http) ?? Date(timeIntervalSince1970: 0)
        return BlobInfo(key: key, size: size,
                        contentType: headers.first(name: "content-type") ?? ContentTypes.forExtension(key.fileExtension),
                        etag: headers.first(name: "etag") ?? "\"\(String(size, radix: 16))-\(Int(modified.timeIntervalSince1970))\"",
                        modifiedAt: modified)
    }

    public func read(_ key: BlobKey, range: Range<Int>?) async throws(StorageError) -> Data {
        if let range, range.isEmpty { return Data() }
        var request = S3Transport.Request(method: .GET, key: stored(key.path), operation: "GET \(key)", accepted: [404, 416],
                                          bodyLimit: range?.count ?? Self.largestRead)
        if let range { request.headers = [("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")] }
        let response = try await send(request)
        switch response.status {
        case 404: throw .notFound("no blob \(key)")
        case 416: return Data()
        case 200 where range != nil:
            // A store that ignored the range sent everything: keep the part asked for.
            let range = range!
            return response.body.count > range.lowerBound ? response.body[range.clamped(to: 0..<response.body.count)] : Data()
        default: return response.body
        }
    }

    public func delete(_ key: BlobKey) async throws(StorageError) {
        try await deleteObject(stored(key.path), operation: "DELETE \(key)")
    }

    public func deleteAll(under prefix: String) async throws(StorageError) {
        let folder = try BlobKey(prefix)
        for object in try await list(prefix: stored(folder.path) + "/") {
            try await deleteObject(object.key, operation: "DELETE \(unstored(object.key))")
        }
    }

    /// A small object written and removed again: proves the store takes writes now.
    public func check() async throws(StorageError) {
        let probe = configuration.keyPrefix + Self.probeFolder + UUID().uuidString.lowercased()
        _ = try await send(.init(method: .PUT, key: probe, headers: [("content-type", "text/plain")], body: Data("ok".utf8),
                                 operation: "PUT health probe"))
        try await deleteObject(probe, operation: "DELETE health probe")
    }

    /// Creates the bucket unless it is there already (a store answers 409 then): what a
    /// deployment's first start does (`atelier migrate --create-bucket`). True when it was made.
    /// Outside us-east-1 the request names the region, as AWS requires.
    @discardableResult
    public func createBucket() async throws(StorageError) -> Bool {
        var body = Data()
        if configuration.region != "us-east-1" {
            body = Data(("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<LocationConstraint>\(configuration.region)</LocationConstraint></CreateBucketConfiguration>").utf8)
        }
        let response = try await send(.init(method: .PUT, key: nil, body: body, operation: "PUT bucket \(configuration.bucket)",
                                            accepted: [409]))
        return response.status != 409
    }

    public func folders(under prefix: String, changedBefore cutoff: Date) async throws(StorageError) -> [String] {
        let parent = try BlobKey(prefix).path
        let listed = stored(parent) + "/"
        var newest: [String: Date] = [:]
        for object in try await list(prefix: listed) {
            let rest = object.key.dropFirst(listed.count)
            guard let slash = rest.firstIndex(of: "/") else { continue }
            let name = String(rest[..<slash])
            guard !name.hasPrefix(".") else { continue }
            newest[name] = max(newest[name] ?? .distantPast, object.lastModified)
        }
        return newest.filter { $0.value < cutoff }.keys.sorted().map { parent + "/" + $0 }
    }

    /// A PUT is atomic on the store, so an interrupted write leaves nothing; what can be left is
    /// a health probe whose removal failed. Those older than `cutoff` are removed.
    public func removeAbandonedWrites(olderThan cutoff: Date) async throws(StorageError) -> Int {
        var removed = 0
        for object in try await list(prefix: configuration.keyPrefix + Self.probeFolder) where object.lastModified < cutoff {
            try await deleteObject(object.key, operation: "DELETE stale health probe")
            removed += 1
        }
        return removed
    }

    /// A GET of `key` signed in the query string, valid from `issued` for `lifetime` seconds
    /// (at most 7 days), naming the blob's content type (`response-content-type`), on the public
    /// endpoint when one is set. Equal arguments give equal URLs.
    public func presignedURL(for key: BlobKey, issued: Date, lifetime: Int) -> String? {
        let location = publicEndpoint.location(bucket: configuration.bucket, key: stored(key.path), pathStyle: configuration.pathStyle)
        let query = presigner.query(host: location.hostHeader, encodedPath: location.encodedPath,
                                    parameters: [("response-content-type", ContentTypes.forExtension(key.fileExtension))],
                                    date: issued, expires: lifetime)
        return location.url + "?" + query
    }

    // MARK: Helpers

    /// Health probes live here, outside every folder the sweeper judges.
    static let probeFolder = ".atelier-health/"

    /// The most one read takes into memory (blobs are images and reports, far smaller).
    static let largestRead = 1 << 30

    private func stored(_ path: String) -> String { configuration.keyPrefix + path }

    private func unstored(_ key: String) -> String {
        key.hasPrefix(configuration.keyPrefix) ? String(key.dropFirst(configuration.keyPrefix.count)) : key
    }

    private func deleteObject(_ key: String, operation: String) async throws(StorageError) {
        _ = try await send(.init(method: .DELETE, key: key, operation: operation, accepted: [404]))
    }

    /// Every object whose key starts with `prefix`, page by page (ListObjectsV2; `pageSize`
    /// keys a page, the store's default 1000 when nil).
    func list(prefix: String, pageSize: Int? = nil) async throws(StorageError) -> [S3ObjectList.Object] {
        var objects: [S3ObjectList.Object] = []
        var continuation: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let continuation { query.append(("continuation-token", continuation)) }
            if let pageSize { query.append(("max-keys", String(pageSize))) }
            let response = try await send(.init(method: .GET, key: nil, query: query, operation: "LIST \(unstored(prefix))"))
            guard let page = S3ObjectList(response.body) else {
                transport.logger.warning("object store listing unreadable", metadata: [
                    "prefix": "\(prefix)", "body": "\(String(decoding: response.body.prefix(300), as: UTF8.self))"])
                throw S3Failure(.badAnswer, operation: "LIST \(unstored(prefix))").storageError
            }
            objects += page.objects
            continuation = page.continuation
        } while continuation != nil
        return objects
    }

    private func send(_ request: S3Transport.Request) async throws(StorageError) -> S3Transport.Response {
        do {
            return try await transport.send(request)
        } catch {
            throw error.storageError
        }
    }
}
