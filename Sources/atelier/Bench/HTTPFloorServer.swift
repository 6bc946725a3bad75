import AtelierAPI
import Foundation
import Hummingbird
import Logging

/// `atelier bench http-floor`: the HTTP server Atelier is built on (Hummingbird 2 on SwiftNIO),
/// answering one static JSON file with its ETag (and, given one, an image at `/thumbnail.webp`)
/// and nothing else — no middleware, no authentication, no cache lookup. ops/bench/api runs it beside `atelier serve` and nginx, so
/// the report can say how much of the gap to nginx is the framework's and how much is ours.
struct HTTPFloorServer {
    let body: ByteBuffer
    let etag: String
    let image: ByteBuffer?

    init(json: Data, image: Data? = nil) {
        body = ByteBuffer(bytes: json)
        etag = ETag.of(json)
        self.image = image.map { ByteBuffer(bytes: $0) }
    }

    func run(host: String, port: Int) async throws {
        let router = Router()
        let (body, etag) = (self.body, self.etag)
        router.get("job.json") { request, _ -> Response in
            if request.headers[.ifNoneMatch] == etag {
                return Response(status: .notModified, headers: [.eTag: etag, .cacheControl: "no-cache"])
            }
            return Response(status: .ok, headers: [.contentType: "application/json", .eTag: etag, .cacheControl: "no-cache"],
                            body: .init(byteBuffer: body))
        }
        if let image {
            let imageTag = "\"\(image.readableBytes)\""
            router.get("thumbnail.webp") { _, _ -> Response in
                Response(status: .ok, headers: [.contentType: "image/webp", .eTag: imageTag, .cacheControl: "private, max-age=3600, immutable"],
                         body: .init(byteBuffer: image))
            }
        }
        var logger = Logger(label: "atelier.bench.http-floor")
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "floor"),
                              logger: logger)
        try await app.runService()
    }
}
