/// The OpenAPI 3.1 description of every route, served at `/openapi.yaml` with `{{BASE_URL}}`
/// replaced by the public base URL. It is `openapi.yaml` beside this file, built into the binary
/// by the EmbedAssets plugin (not a bundle resource) so the single `atelier` binary carries it
/// wherever it is copied. `ServiceEndpointTests` checks that the routes served and the
/// operations described are the same set.
package enum OpenAPIDocument {
    static let yaml = EmbeddedAssets.openapiYaml

    /// The document as a server that accepts `kinds` serves it at `baseURL`: what
    /// `GET /openapi.yaml` answers, and what `atelier openapi` prints (the Swift client is
    /// generated from that).
    package static func rendered(kinds: JobKindCatalog, baseURL: String) -> String {
        OpenAPIJobKinds.render(yaml, kinds: kinds.names).replacingOccurrences(of: "{{BASE_URL}}", with: baseURL)
    }
}
