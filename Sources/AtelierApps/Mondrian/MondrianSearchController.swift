import AtelierAPI
import AtelierQueue
import AtelierSearch
import AtelierStorage
import Foundation
import Hummingbird

/// Mondrian's `POST /search {query, top_k}` (docs/clients.md §2) → `{query, results:[{id, job_id,
/// image_path, caption, similarity, thumbnail_url, thumbhash}], total}`: the caller's indexed *images*
/// only, so every field the app's `SearchResult` requires is present. Same search
/// (``SearchService``) and validation as `/v1/search`; `top_k` defaults to 10 (the app's own
/// default). `thumbnail_url` (the app ignores keys it does not know) is a signed variant URL of
/// the hit's photo, as job views carry (``VariantParameters/thumbnail``), and `thumbhash` its
/// placeholder from that job's result; null when the photo's job is gone (`thumbhash` also
/// while it has no result yet).
struct MondrianSearchController: Sendable {
    let service: SearchService
    let queue: JobQueue
    let signer: URLSigner
    let base: PublicBaseURL

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("search", use: handle)
    }

    struct Result: Encodable {
        var id: String
        var job_id: String
        var image_path: String
        var caption: String
        var similarity: Double
        @NullWhenAbsent var thumbnail_url: String?
        @NullWhenAbsent var thumbhash: String?

        enum CodingKeys: String, CodingKey { case id, job_id, image_path, caption, similarity, thumbnail_url, thumbhash }
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
        let photos = try await HitPhoto.lookup(jobs: items.compactMap(\.jobID), queue: queue, signer: signer, base: base.value(for: request))
        let results = items.compactMap { item -> Result? in
            guard let job = item.jobID, let path = item.imagePath else { return nil }
            return Result(id: item.id.uuidString.lowercased(), job_id: job.uuidString.lowercased(), image_path: path,
                          caption: item.text, similarity: SearchService.rounded(item.similarity),
                          thumbnail_url: photos[job]?.thumbnailURL, thumbhash: photos[job]?.thumbhash)
        }
        return try JSONResponse.encode(Answer(query: query.text, results: results, total: results.count))
    }
}
