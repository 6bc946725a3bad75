import AtelierAPI
import Foundation
import Hummingbird

/// `GET /admin/assets/console.css|console.js`: the stylesheet and the script built into the
/// binary, with an ETag (the API's own, ``ETag``) so a browser revalidates cheaply; public, no session needed.
struct AssetsRoute: Sendable {
    struct Asset: Sendable { var body: String; var type: String; var etag: String }

    static let assets: [String: Asset] = [
        "console.css": asset(Stylesheet.css, type: "text/css; charset=utf-8"),
        "console.js": asset(Script.js, type: "text/javascript; charset=utf-8"),
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
