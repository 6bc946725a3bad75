import Foundation
import HTTPTypes
import OpenAPIRuntime

/// An app's connection to an Atelier server: the generated ``Client`` (every operation, typed) with
/// the app token sent on every request, `Retry-After` honoured on 429 and 503 (``RetryPolicy``),
/// and every failure thrown as an ``AtelierError``; plus the calls the generator cannot write —
/// a photo submitted for a style, a job followed until it ends, a signed result downloaded.
public struct Atelier: Sendable {
    /// Every operation of the API document, for what the calls below do not cover.
    public let client: Client
    let serverURL: URL
    let transport: any ClientTransport

    /// `transport`: `URLSessionTransport()` (swift-openapi-urlsession) on Apple platforms,
    /// `AsyncHTTPClientTransport()` (swift-openapi-async-http-client) on Linux.
    public init(serverURL: URL, appToken: String?, transport: any ClientTransport, retry: RetryPolicy = RetryPolicy()) {
        var middlewares: [any ClientMiddleware] = []
        if let appToken { middlewares.append(AppTokenMiddleware(token: appToken)) }
        middlewares.append(ConditionalRequestMiddleware())
        middlewares.append(ErrorMiddleware())
        middlewares.append(RetryAfterMiddleware(policy: retry))
        self.client = Client(serverURL: serverURL, configuration: Configuration(dateTranscoder: ServerDates()),
                             transport: transport, middlewares: middlewares)
        self.serverURL = serverURL
        self.transport = transport
    }

    /// A stylize job for `photo` (JPEG, PNG, HEIC or WebP bytes), as the Caricature app submits it.
    public func submit(photo: Data, style: String, output: String = "jpeg") async throws(AtelierError) -> Components.Schemas.CreatedJob {
        typealias Part = Operations.CreateJob.Input.Body.MultipartFormPayload
        let parts: [Part] = [
            .image(.init(payload: .init(body: HTTPBody(photo)), filename: "photo")),
            .kind(.init(payload: .init(body: HTTPBody("stylize")))),
            .styleId(.init(payload: .init(body: HTTPBody(style)))),
            .output(.init(payload: .init(body: HTTPBody(output)))),
        ]
        let answer = try await call { try await client.createJob(body: .multipartForm(MultipartBody(parts))) }
        switch answer {
        case .ok(let ok): return try decoded { try ok.body.json }
        case .undocumented(let status, _): throw .unexpected(status: status, requestID: nil)
        default: throw Self.reportedAlready
        }
    }

    /// The job as it is now, or nil when it has not changed since the `etag` given (the server
    /// answered 304); with the ETag to send next time.
    public func job(_ id: String, ifNoneMatch etag: String? = nil) async throws(AtelierError) -> (job: Components.Schemas.Job?, etag: String?) {
        let answer = try await call {
            try await ConditionalRequestMiddleware.$ifNoneMatch.withValue(etag) { try await client.getJob(path: .init(id: id)) }
        }
        switch answer {
        case .ok(let ok): return (try decoded { try ok.body.json }, ok.headers.eTag)
        case .notModified(let notModified): return (nil, notModified.headers.eTag ?? etag)
        case .undocumented(let status, _): throw .unexpected(status: status, requestID: nil)
        default: throw Self.reportedAlready
        }
    }

    /// Polls the job, with `If-None-Match` so an unchanged job costs the server no body, until it
    /// has ended (succeeded, failed or cancelled); `every` apart.
    public func finished(_ id: String, every: Duration = .milliseconds(250)) async throws -> Components.Schemas.Job {
        var etag: String?
        var last: Components.Schemas.Job?
        while true {
            let (job, tag) = try await self.job(id, ifNoneMatch: etag)
            etag = tag
            if let job { last = job }
            if let last, last.status != .pending { return last }
            try await Task.sleep(for: every)
        }
    }

    /// The bytes at a signed URL the server handed out (`result_url`, `thumbnail_url`): no credential
    /// is sent, the signature is the permission. At most `limit` bytes.
    public func download(_ url: String, limit: Int = 64 * 1024 * 1024) async throws(AtelierError) -> Data {
        guard let target = URL(string: url), let scheme = target.scheme, let host = target.host else {
            throw .transport(reason: "not an absolute URL: \(url.prefix(200))")
        }
        let base = URL(string: "\(scheme)://\(host)" + (target.port.map { ":\($0)" } ?? ""))!
        let pathAndQuery = target.path + (target.query.map { "?\($0)" } ?? "")
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: pathAndQuery)
        do {
            let (response, body) = try await transport.send(request, body: nil, baseURL: base, operationID: "download")
            let requestID = response.headerFields[HTTPField.Name("X-Request-ID")!]
            guard response.status.code == 200 else { throw AtelierError.unexpected(status: response.status.code, requestID: requestID) }
            guard let body else { return Data() }
            return try await Data(collecting: body, upTo: limit)
        } catch let error as AtelierError {
            throw error
        } catch {
            throw .transport(reason: "\(error)")
        }
    }

    /// The documented error answers (4xx, 5xx) never reach a call's `switch`: the error middleware
    /// has thrown them as ``AtelierError/server(status:error:message:field:requestID:retryAfter:)``.
    static let reportedAlready = AtelierError.transport(reason: "an error answer passed the error middleware")

    /// Runs a generated call, so that what it throws is an ``AtelierError``.
    func call<T>(_ body: () async throws -> T) async throws(AtelierError) -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            if let atelier = error.underlyingError as? AtelierError { throw atelier }
            throw .transport(reason: "\(error.underlyingError)")
        } catch let error as AtelierError {
            throw error
        } catch {
            throw .transport(reason: "\(error)")
        }
    }

    /// Reads a documented body, so that a body that does not decode is an ``AtelierError``.
    func decoded<T>(_ body: () throws -> T) throws(AtelierError) -> T {
        do { return try body() } catch { throw .unexpected(status: 200, requestID: nil) }
    }
}
