import AtelierEmbeddings
import AsyncHTTPClient
import AtelierAPI
import AtelierDatabase
import AtelierApps
import AtelierConsole
import AtelierHandlers
import AtelierVision
import AtelierQueue
import AtelierStorage
import AtelierTestSupport
import AtelierWorker
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import XCTest

/// A real API on a loopback port — the core routes and the apps' (as `atelier serve` composes
/// them) — against the test's own database, an in-process worker with the
/// diagnostic handlers (echo included) sharing a temporary blob directory (or another store a
/// subclass makes), and a real HTTP client.
open class APITestCase: DatabaseTestCase {
    package var baseURL = ""
    package var blobRoot: URL!
    package var server: APIServer!
    /// The store the API and the worker share (``makeBlobStore(directory:)``).
    package var blobs: (any BlobStore)!
    package var http: HTTPClient!
    package var token = ""
    private var serviceTask: Task<Void, any Error>?
    private var group: ServiceGroup?

    /// Override with false to run the API without the in-process worker.
    open var runsWorker: Bool { true }

    /// Override to give the API and the worker the embedding model (search and `index`).
    open var embeddingModel: TestEmbeddingModel { TestEmbeddingModel(nil) }

    /// Override to caption with another provider (the worker's `caption` handler).
    open var visionProvider: TestVisionProvider { TestVisionProvider(LocalVisionProvider()) }

    /// Override to offer kinds of the test's own: their contracts in the API's catalog and their
    /// handlers in the worker, beside the built-in ones.
    open var moreKinds: [TestKind] { [] }

    /// Override with false to send requests without the test's token unless one is given (a
    /// client that sends no credential, as on an app listed in `ATELIER_ANONYMOUS_APPS`).
    open var sendsToken: Bool { true }

    /// Override to change the server's settings before it starts.
    open func configure(_ configuration: inout ServerSettings) {}

    /// Override to reach the database another way from the API (through a ``DatabaseSilencer``),
    /// or with fewer connections; the worker and the test's own statements go direct.
    open func apiDatabase(_ url: DatabaseURL) throws -> (url: DatabaseURL, connections: Int) { (url, 8) }

    /// Override to run on another blob store (the S3 tests give the SeaweedFS of ./ops/test).
    open func makeBlobStore(directory: URL) throws -> any BlobStore {
        try LocalBlobStore(root: directory)
    }

    open override func setUp() async throws {
        try await super.setUp()
        blobRoot = FileManager.default.temporaryDirectory.appendingPathComponent("atelier-api-test-\(UUID().uuidString)")
        var configuration = APIConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = blobRoot
        configuration.signingSecret = String(repeating: "s3cr3t-", count: 6)
        configuration.jwtSecret = String(repeating: "jwt-s3cr3t-", count: 4)
        configuration.accessLog = false
        configuration.version = "test"
        var settings = ServerSettings(api: configuration)
        configure(&settings)
        configuration = settings.api
        var logger = Logger(label: "api-test")
        logger.logLevel = .error
        let blobs = try makeBlobStore(directory: configuration.blobDirectory)
        self.blobs = blobs
        // The API runs its own pool (as in production); the worker shares the test database's.
        let apiDatabase = try apiDatabase(db.url)
        let apiQueue = JobQueue(url: apiDatabase.url, applicationName: "atelier-api-test",
                                maxConnections: apiDatabase.connections, logger: logger)
        server = try APIServer(configuration: configuration, queue: apiQueue,
                               kinds: JobKindCatalog(JobKindCatalog.diagnostics + [JobKindCatalog.stylize, JobKindCatalog.index, JobKindCatalog.caption, JobKindCatalog.analysis, JobKindCatalog.upload] + moreKinds.map(\.kind)),
                               blobs: blobs, encoder: embeddingModel.encoder, logger: logger, apps: Apps.all + [ConsoleApp()])
        var workerConfiguration = WorkerConfiguration()
        workerConfiguration.pollInterval = .milliseconds(200)
        workerConfiguration.drainTimeout = .seconds(1)
        // Never exit(0) the test runner over a handler that outlives the drain: the rest of the
        // suite would silently not run.
        workerConfiguration.exitIfDrainHangs = false
        var handlers = DiagnosticHandlers.all(environment: [:], blobs: blobs) + [StylizeHandler(blobs: blobs, maxSide: 512),
                                                                                 CaptionHandler(blobs: blobs, provider: visionProvider.provider),
                                                                                 AnalysisHandler(blobs: blobs, provider: visionProvider.provider),
                                                                                 UploadHandler(blobs: blobs),
                                                                                 VariantHandler(blobs: blobs)]
        if let encoder = embeddingModel.encoder { handlers.append(IndexHandler(encoder: encoder, blobs: blobs, captioner: visionProvider.provider)) }
        handlers += moreKinds.map(\.handler)
        let worker = try Worker(queue: db.queue, handlers: HandlerRegistry(handlers),
                                configuration: workerConfiguration, logger: logger)
        let port = PortBox()
        let app = try server.makeApplication(services: runsWorker ? [worker] : []) { channel in
            port.set(channel.localAddress?.port ?? 0)
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        self.group = group
        serviceTask = Task { try await group.run() }
        try await db.eventually("the server listens") { port.value > 0 }
        baseURL = "http://127.0.0.1:\(port.value)"
        http = HTTPClient(eventLoopGroupProvider: .singleton)
        token = try await AppTokens(database: db.queue.database).create(name: "alice").secret
        try await db.eventually("the listener is up") { server.notifier.isListening }
    }

    /// Begins the server's stop, as SIGTERM does (`tearDown` waits for it to end).
    package func beginStop() async {
        await group?.triggerGracefulShutdown()
    }

    open override func tearDown() async throws {
        try? await http?.shutdown()
        await group?.triggerGracefulShutdown()
        _ = try? await serviceTask?.value
        if let blobRoot { try? FileManager.default.removeItem(at: blobRoot) }
        if let store = blobs as? S3BlobStore { await TestObjectStore.clean(store) }
        try await super.tearDown()
    }

    // MARK: Requests

    package struct Reply: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: Data

        package init(status: Int, headers: HTTPHeaders, body: Data) {
            (self.status, self.headers, self.body) = (status, headers, body)
        }

        package func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }

        package var text: String { String(decoding: body, as: UTF8.self) }
        package func header(_ name: String) -> String? { headers.first(name: name) }
    }

    package func request(_ method: HTTPMethod = .GET, _ path: String, token: String?? = .none, headers: [(String, String)] = [],
                 body: Data? = nil, contentType: String? = nil, timeout: TimeAmount = .seconds(30)) async throws -> Reply {
        var request = HTTPClientRequest(url: path.hasPrefix("http") ? path : baseURL + path)
        request.method = method
        let credential: String? = switch token {
        case .none: sendsToken ? self.token : nil
        case .some(let explicit): explicit
        }
        if let credential { request.headers.add(name: "X-App-Token", value: credential) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }

    /// A multipart/form-data body: text fields, then an optional file part named `image`.
    package func multipart(_ fields: [(String, String)], image: Data? = nil, filename: String = "image.png",
                   contentType: String = "image/png") -> (Data, String) {
        let boundary = "atelier-test-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let image {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
            body += image
            body += Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    /// Every insert into `jobs` fails from now on (a trigger raises), as if the database refused
    /// the row after the upload was stored.
    package func refuseJobInserts() async throws {
        try await db.execute("""
            CREATE FUNCTION refuse_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'inserts refused by the test'; END $$
            """)
        try await db.execute("CREATE TRIGGER refuse BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION refuse_jobs()")
    }

    /// Creates a job with a JSON body; returns its id.
    package func createJob(kind: String, options: [String: Any] = [:], token: String?? = .none,
                   headers: [(String, String)] = []) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["kind": kind, "options": options])
        let reply = try await request(.POST, "/v1/jobs", token: token, headers: headers, body: body, contentType: "application/json")
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json()["id"] as? String)
    }

    /// Polls `GET /v1/jobs/{id}` until its status is not pending.
    package func waitForCompletion(_ id: String, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        try await db.eventually("job \(id) finishes", timeout: timeout) {
            last = try await request(.GET, "/v1/jobs/\(id)").json()
            return (last["status"] as? String) != "pending"
        }
        return last
    }

    package func assertError(_ reply: Reply, status: Int, name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(reply.status, status, reply.text, file: file, line: line)
        let body = try reply.json()
        XCTAssertEqual(body["error"] as? String, name, reply.text, file: file, line: line)
        XCTAssertFalse((body["message"] as? String ?? "").isEmpty, "errors carry a message", file: file, line: line)
        XCTAssertNotNil(reply.header("X-Request-ID"), file: file, line: line)
    }
}

package final class PortBox: Sendable {
    private let storage = Mutex(0)
    package var value: Int { storage.withLock { $0 } }
    package func set(_ port: Int) { storage.withLock { $0 = port } }
}
