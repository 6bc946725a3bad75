import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird

/// Two probes, as orchestrators ask them (docs/clients.md §4.6):
/// - `GET /health/ready` (and `GET /health`, its older name): `healthy` and 200 when the database
///   answers, the blob store takes a write and the LISTEN connection is up; otherwise
///   `degraded`, 503, and a message naming what is down. A load balancer sends traffic only to
///   a ready process.
/// - `GET /health/live`: 200 whenever the process can answer at all. It asks no dependency, so
///   a database outage makes every API process unready but restarts none of them.
///
/// Each check has a time limit so a hung dependency cannot hang this.
/// The route is package and polled by load balancers: the database is asked at most once a
/// second and the blob store (a durable write) at most every 10 s, whatever the request rate.
struct HealthController: Sendable {
    let notifier: Notifier
    let version: String
    private let database: SharedRecentResult<String>
    private let storage: SharedRecentResult<String>

    init(queue: JobQueue, blobs: any BlobStore, notifier: Notifier, version: String, timeout: Duration = .seconds(2)) {
        self.notifier = notifier
        self.version = version
        database = SharedRecentResult(maxAge: .seconds(1)) { await Self.check(timeout: timeout) { try await queue.ping() } }
        storage = SharedRecentResult(maxAge: .seconds(10)) { await Self.check(timeout: timeout) { try await blobs.check() } }
    }

    struct Report: Encodable {
        var status: String
        /// ISO 8601 in whole seconds (`2024-01-20T14:30:00Z`): what a plain `.iso8601` decoder reads.
        var timestamp: String
        var version: String
        var checks: [String: String]
        var message: String?
    }

    struct Liveness: Encodable {
        var status = "alive"
        var version: String
    }

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("health", use: health)
        router.get("health/ready", use: health)
        router.get("health/live", use: live)
    }

    @Sendable func live(_ request: Request, context: APIRequestContext) async throws -> Response {
        var response = try JSONResponse.encode(Liveness(version: version), status: .ok)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func health(_ request: Request, context: APIRequestContext) async throws -> Response {
        async let database = self.database.value()
        async let storage = self.storage.value()
        let checks = ["database": try await database, "storage": try await storage,
                      "listener": notifier.isListening ? "ok" : "error"]
        let down = checks.filter { $0.value != "ok" }.keys.sorted()
        let report = Report(status: down.isEmpty ? "healthy" : "degraded", timestamp: Date().formatted(.iso8601), version: version,
                            checks: checks,
                            message: down.isEmpty ? nil : "unavailable: \(down.joined(separator: ", "))")
        var response = try JSONResponse.encode(report, status: down.isEmpty ? .ok : .serviceUnavailable)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// "ok" or "error"; answers at the time limit even if the probe ignores cancellation
    /// (``StatementDeadline``: the probe left behind is cancelled, not waited for).
    private static func check(timeout limit: Duration, _ probe: @escaping @Sendable () async throws -> Void) async -> String {
        do {
            try await StatementDeadline(limit).run("a health probe", probe)
            return "ok"
        } catch {
            return "error"
        }
    }
}
