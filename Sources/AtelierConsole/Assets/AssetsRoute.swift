import AtelierAPI
import Foundation
import Hummingbird

/// `GET /admin/assets/console.css|console.js`: the stylesheet and the script beside this file,
/// built into the binary by the EmbedAssets plugin (no build step, nothing from a CDN), with an
/// ETag (the API's own, ``ETag``) so a browser revalidates cheaply; public, no session needed.
///
/// `console.css`: colours meet WCAG AA contrast on their backgrounds; state badges repeat their
/// state in words; focus is always visible; tables scroll sideways on a phone.
///
/// `console.js`, the console's only script, keeps the open page live from `/admin/live`
/// (Server-Sent Events). The overview swaps in the content each `overview` frame carries; the job
/// list replaces rows that changed and, on its first page, puts in the jobs that match its filters
/// and belong on it — in their place by id, as a reload would (50 rows at most); a job's page
/// updates its progress and reloads when its state changes. The job list's first page and a job's
/// page ask the stream to start with what they show as it stands now (`show`), so nothing that
/// changed before the stream opened is missed. Every page works without it.
struct AssetsRoute: Sendable {
    struct Asset: Sendable { var body: String; var type: String; var etag: String }

    static let assets: [String: Asset] = [
        "console.css": asset(EmbeddedAssets.consoleCss, type: "text/css; charset=utf-8"),
        "console.js": asset(EmbeddedAssets.consoleJs, type: "text/javascript; charset=utf-8"),
    ]

    static func asset(_ body: String, type: String) -> Asset {
        Asset(body: body, type: type, etag: ETag.of(Data(body.utf8)))
    }

    func serve(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard let name = context.parameters.get("name"), let asset = Self.assets[name] else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "no such file\n")))
        }
        var headers = ConsolePage.securityHeaders
        headers[.contentType] = asset.type
        headers[.cacheControl] = "no-cache"
        headers[.eTag] = asset.etag
        if let presented = request.headers[.ifNoneMatch], ETag.matches(presented, asset.etag) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: asset.body)))
    }
}
