/// The OpenAPI 3.1 description of every route, served at `/openapi.yaml` with `{{BASE_URL}}`
/// replaced by the package base URL. It is `openapi.yaml` beside this file, built into the binary
/// by the EmbedAssets plugin (not a bundle resource) so the single `atelier` binary carries it
/// wherever it is copied. `ServiceEndpointTests` checks that the routes served and the
/// operations described are the same set.
enum OpenAPIDocument {
    static let yaml = EmbeddedAssets.openapiYaml
}
