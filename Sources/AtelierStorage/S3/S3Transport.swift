import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Sends signed requests to one bucket over AsyncHTTPClient and retries what is worth
/// retrying (``S3RetryPolicy``). Each attempt is signed afresh; bodies go out as a stream of
/// chunks with their length and SHA-256 (`x-amz-content-sha256`) known up front, and answers
/// are read as they arrive.
struct S3Transport: Sendable {
    let client: HTTPClient
    let endpoint: S3Endpoint
    let bucket: String
    let pathStyle: Bool
    let signer: HeaderSigner
    let timeout: Duration
    let retries: S3RetryPolicy
    let logger: Logger

    /// The HTTP client of every S3 store in the process (never shut down, like
    /// `HTTPClient.shared`, whose settings suit a browser rather than a store: it follows
    /// redirects, decompresses, and keeps retrying a refused connection until the request's
    /// deadline). Here a connection that cannot be made fails its request at once (within 5 s),
    /// and ``S3RetryPolicy`` decides what happens next — so a store that is down is reported in
    /// seconds, not after every attempt's time limit.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .seconds(5)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    struct Request: Sendable {
        var method: HTTPMethod
        /// The object's full key, or nil for the bucket itself.
        var key: String?
        var query: [(String, String)] = []
        var headers: [(String, String)] = []
        var body = Data()
        /// What the log and errors call it (`PUT jobs/…/input.jpg`).
        var operation: String
        /// Statuses besides 2xx handed back to the caller (404 for HEAD, 416 for ranges …).
        var accepted: Set<Int> = []
        /// The most of an answer's body read into memory.
        var bodyLimit = 64 * 1024 * 1024
    }

    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// The answer to `request`, once a 2xx or accepted status comes back; every other outcome
    /// after the last attempt is an ``S3Failure``, logged with what the store said.
    func send(_ request: Request) async throws(S3Failure) -> Response {
        let payloadHash = HeaderSigner.payloadHash(request.body)
        var attempt = 0
        while true {
            attempt += 1
            let failure: S3Failure
            switch await attemptOnce(request, payloadHash: payloadHash) {
            case .success(let response):
                if (200..<300).contains(response.status) || request.accepted.contains(response.status) { return response }
                let said = S3ErrorBody(response.body)
                let kind: S3Failure.Kind = S3RetryPolicy.retries(status: response.status) ? .serverError
                    : response.status == 403 ? .refused
                    : response.status == 404 && said.code == "NoSuchBucket" ? .noBucket : .rejected
                failure = S3Failure(kind, operation: request.operation, status: response.status, code: said.code,
                                    detail: said.message, attempts: attempt)
            case .failure(let error):
                failure = error
            }
            let retryable = failure.kind == .unreachable || failure.kind == .serverError
            if retryable && attempt < retries.maxAttempts && !Task.isCancelled {
                try? await Task.sleep(for: retries.delay(after: attempt))
                continue
            }
            var final = failure
            final.attempts = attempt
            logger.warning("object store request failed", metadata: [
                "operation": "\(request.operation)", "status": "\(failure.status.map(String.init) ?? "none")",
                "code": "\(failure.code ?? "none")", "detail": "\(failure.detail ?? "none")", "attempts": "\(attempt)"])
            throw final
        }
    }

    private func attemptOnce(_ request: Request, payloadHash: String) async -> Result<Response, S3Failure> {
        let location = endpoint.location(bucket: bucket, key: request.key, pathStyle: pathStyle)
        let signed = signer.sign(method: request.method.rawValue, host: location.hostHeader, encodedPath: location.encodedPath,
                                 query: request.query, headers: request.headers, payloadHash: payloadHash, date: Date())
        let query = request.query.map { "\(CanonicalRequest.encode($0.0))=\(CanonicalRequest.encode($0.1))" }.joined(separator: "&")
        var http = HTTPClientRequest(url: location.url + (query.isEmpty ? "" : "?" + query))
        http.method = request.method
        for (name, value) in signed.headers { http.headers.add(name: name, value: value) }
        if !request.body.isEmpty || request.method == .PUT || request.method == .POST {
            http.body = .stream(DataChunks(request.body), length: .known(Int64(request.body.count)))
        }
        do {
            let response = try await client.execute(http, timeout: TimeAmount(timeout))
            let body = try await Self.read(response, limit: request.bodyLimit, method: request.method)
            return .success(Response(status: Int(response.status.code), headers: response.headers, body: body))
        } catch let error as S3Failure {
            return .failure(error)
        } catch {
            return .failure(S3Failure(.unreachable, operation: request.operation, detail: "\(error)"))
        }
    }

    /// The answer's body as it streams in, into one buffer sized from Content-Length.
    private static func read(_ response: HTTPClientResponse, limit: Int, method: HTTPMethod) async throws -> Data {
        var data = Data()
        if method == .HEAD { return data }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length <= limit {
            data.reserveCapacity(length)
        }
        for try await chunk in response.body {
            guard data.count + chunk.readableBytes <= limit else {
                throw S3Failure(.badAnswer, operation: "read", detail: "the answer is larger than \(limit) bytes")
            }
            chunk.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        return data
    }
}

/// A body sent in 256 KiB chunks, so a large upload is not copied into one buffer first.
struct DataChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let data: Data
    let size = 256 * 1024

    init(_ data: Data) { self.data = data }

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let size: Int
        var offset: Int

        mutating func next() async -> ByteBuffer? {
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + size, data.count)
            let chunk = ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + end)])
            offset = end
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data, size: size, offset: 0) }
}
