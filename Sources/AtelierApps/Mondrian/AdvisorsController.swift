import AtelierAPI
import AtelierImaging
import AtelierVision
import Foundation
import HTTPTypes
import Hummingbird

/// Mondrian's `GET /advisors` (docs/clients.md §2) → `{advisors: [{id, name, specialty, focus_areas,
/// image_url}]}` with absolute URLs, and `GET /advisor_image/{id}.png`, each advisor's generated
/// Mondrian-style picture. The pictures hold no user data and are public, since the app loads
/// them in image views that send no token.
struct AdvisorsController: Sendable {
    let base: PublicBaseURL
    private let pictures: [String: [UInt8]]

    init(base: PublicBaseURL) {
        self.base = base
        var pictures: [String: [UInt8]] = [:]
        for advisor in Advisor.all { pictures[advisor.id] = (try? ImageCodec.encodePNG(AdvisorPortrait.render(advisor))) ?? [] }
        self.pictures = pictures
    }

    func register(list group: RouterGroup<APIRequestContext>, pictures router: Router<APIRequestContext>) {
        group.get("advisors", use: list)
        router.get("advisor_image/:file", use: picture)
    }

    struct Entry: Encodable {
        var id: String
        var name: String
        var specialty: String
        var focus_areas: [String]
        var image_url: String
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let root = base.value(for: request)
        let advisors = Advisor.all.map { advisor in
            Entry(id: advisor.id, name: advisor.name, specialty: advisor.specialty, focus_areas: advisor.focusAreas.map(\.rawValue),
                  image_url: "\(root)/advisor_image/\(advisor.id).png")
        }
        return try JSONResponse.encode(["advisors": advisors])
    }

    @Sendable func picture(_ request: Request, context: APIRequestContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        guard file.hasSuffix(".png"), let bytes = pictures[String(file.dropLast(4))], !bytes.isEmpty else {
            throw APIError.notFound("no advisor picture \(file.prefix(60))")
        }
        return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "public, max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
