import Foundation
import Hummingbird
import NIOCore

/// `GET /openapi.yaml`: the API description shipped with this build (`OpenAPI/openapi.yaml`),
/// with the server URL set to the public base URL. A test checks it against the routes.
struct OpenAPIController: Sendable {
    let template: String
    let base: PublicBaseURL

    init(base: PublicBaseURL) throws {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw APIError.internal()
        }
        template = try String(contentsOf: url, encoding: .utf8)
        self.base = base
    }

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("openapi.yaml", use: serve)
    }

    @Sendable func serve(_ request: Request, context: APIRequestContext) async throws -> Response {
        let document = Data(template.replacingOccurrences(of: "{{BASE_URL}}", with: base.value).utf8)
        return Response(status: .ok, headers: [
            .contentType: "application/yaml; charset=utf-8",
            .contentLength: String(document.count),
        ], body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }

    /// The text of the bundled document, for tools and tests.
    public static func bundledText() throws -> String {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else { return "" }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
