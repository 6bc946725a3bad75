import AtelierAPI
import AtelierSearch
import Hummingbird

/// Mondrian's `POST /search {query, top_k}` (docs/clients.md §2) → `{query, results:[{id, job_id,
/// image_path, caption, similarity}], total}`: the caller's indexed *images* only, so every
/// field the app's `SearchResult` requires is present. Same search (``SearchService``) and
/// validation as `/v1/search`; `top_k` defaults to 10 (the app's own default).
struct MondrianSearchController: Sendable {
    let service: SearchService

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("search", use: handle)
    }

    struct Result: Encodable {
        var id: String
        var job_id: String
        var image_path: String
        var caption: String
        var similarity: Double
    }

    struct Answer: Encodable {
        var query: String
        var results: [Result]
        var total: Int
    }

    @Sendable func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let query = try await SearchQuery.parse(request, fields: ["query", "top_k"], defaultTopK: 10)
        let items = try await service.nearest(query, owner: principal.owner, sourceKind: "image")
        let results = items.compactMap { item -> Result? in
            guard let job = item.jobID, let path = item.imagePath else { return nil }
            return Result(id: item.id.uuidString.lowercased(), job_id: job.uuidString.lowercased(), image_path: path,
                          caption: item.text, similarity: SearchService.rounded(item.similarity))
        }
        return try JSONResponse.encode(Answer(query: query.text, results: results, total: results.count))
    }
}
