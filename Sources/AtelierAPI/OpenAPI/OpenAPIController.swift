import Foundation
import Hummingbird
import NIOCore

/// `GET /openapi.yaml`: the API description built into this binary (``OpenAPIDocument``), with
/// the server URL set to the package base URL for the request and the job kinds this server accepts
/// (``OpenAPIJobKinds``). A test checks it against the routes.
struct OpenAPIController: Sendable {
    let template: String
    let base: PublicBaseURL

    init(base: PublicBaseURL, kinds: JobKindCatalog) {
        template = OpenAPIJobKinds.render(OpenAPIDocument.yaml, kinds: kinds.names)
        self.base = base
    }

    func register(on router: some RouterMethods<APIRequestContext>) {
        router.get("openapi.yaml", use: serve)
    }

    @Sendable func serve(_ request: Request, context: APIRequestContext) async throws -> Response {
        let document = Data(template.replacingOccurrences(of: "{{BASE_URL}}", with: base.value(for: request)).utf8)
        return Response(status: .ok, headers: [
            .contentType: "application/yaml; charset=utf-8",
            .contentLength: String(document.count),
        ], body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }
}
