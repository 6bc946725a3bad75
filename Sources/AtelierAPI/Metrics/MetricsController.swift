import AtelierQueue
import Hummingbird
import NIOCore

/// `GET /metrics`: Prometheus text format (see ``APIMetrics``). Public like `/health`; put it
/// behind your proxy's access rules if job counts are sensitive where you run.
struct MetricsController: Sendable {
    let metrics: APIMetrics
    let queue: JobQueue

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("metrics", use: scrape)
    }

    @Sendable func scrape(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bytes = try await metrics.render(queue: queue)
        return Response(status: .ok, headers: [
            .contentType: "text/plain; version=0.0.4; charset=utf-8",
            .contentLength: String(bytes.count),
            .cacheControl: "no-store",
        ], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
