import AtelierQueue
import Hummingbird
import NIOCore

/// `GET /metrics`: Prometheus text format (see ``APIMetrics``). Public like `/health`; put it
/// behind your proxy's access rules if job counts are sensitive where you run. The job counts
/// are kept with the jobs (constant time), but the run times read the last 15 minutes' finished
/// jobs, so the figures are read at most once every `maxAge` (5 s) and shared by every scrape in
/// between; request counters are always current.
struct MetricsController: Sendable {
    let metrics: APIMetrics
    let snapshot: SharedRecentResult<MetricsSnapshot>
    let lanes: ServerLanes

    init(metrics: APIMetrics, queue: JobQueue, lanes: ServerLanes, maxAge: Duration = .seconds(5)) {
        self.metrics = metrics
        self.lanes = lanes
        self.snapshot = SharedRecentResult(maxAge: maxAge) { try await queue.metricsSnapshot() }
    }

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("metrics", use: scrape)
    }

    @Sendable func scrape(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bytes = metrics.render(try await snapshot.value(), lanes: lanes.all)
        return Response(status: .ok, headers: [
            .contentType: "text/plain; version=0.0.4; charset=utf-8",
            .contentLength: String(bytes.count),
            .cacheControl: "no-store",
        ], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
