import AtelierQueue
import AtelierStorage
import Foundation
import Hummingbird

/// `POST /v1/search {query, top_k?, collection?, min_similarity?}` → `{query, results, total}`:
/// the caller's items nearest to the query (``SearchService``), images and texts. An image hit
/// also carries its photo's `thumbnail_url` and `thumbhash` (``HitPhoto``); as every field this
/// answer has no value for, they are left out otherwise.
struct SearchController: Sendable {
    let service: SearchService
    let queue: JobQueue
    let signer: URLSigner
    let base: PublicBaseURL

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("search", use: search)
    }

    struct Result: Encodable {
        var id: String
        var collection: String
        var source_kind: String
        var source_key: String
        var job_id: String?
        var image_path: String?
        var text: String
        var caption: String?
        var similarity: Double
        var thumbnail_url: String?
        var thumbhash: String?

    }

    struct Answer: Encodable {
        var query: String
        var results: [Result]
        var total: Int
    }

    @Sendable func search(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let query = try await SearchQuery.parse(request, fields: ["query", "top_k", "collection", "min_similarity"], defaultTopK: 5)
        let items = try await service.nearest(query, owner: principal.owner)
        let images = items.filter { $0.sourceKind == "image" }.compactMap(\.jobID)
        let photos = try await HitPhoto.lookup(jobs: images, queue: queue, signer: signer, base: base.value(for: request))
        let results = items.map { item in
            let photo = item.sourceKind == "image" ? item.jobID.flatMap { photos[$0] } : nil
            return Result(id: item.id.uuidString.lowercased(), collection: item.collection, source_kind: item.sourceKind,
                          source_key: item.sourceKey, job_id: item.jobID?.uuidString.lowercased(), image_path: item.imagePath,
                          text: item.text, caption: item.sourceKind == "image" ? item.text : nil,
                          similarity: SearchService.rounded(item.similarity),
                          thumbnail_url: photo?.thumbnailURL, thumbhash: photo?.thumbhash)
        }
        return try JSONResponse.encode(Answer(query: query.text, results: results, total: results.count))
    }
}
