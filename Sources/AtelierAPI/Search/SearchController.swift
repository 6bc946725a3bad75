import AtelierEmbeddings
import AtelierSearch
import Foundation
import Hummingbird

/// `POST /v1/search {query, top_k?, collection?, min_similarity?}` → `{query, results, total}`:
/// the query is embedded in this process (the model loaded once, shared by every request) and
/// pgvector returns the caller's nearest items. Without a model (ATELIER_MODEL_DIR unset) the
/// route answers 503 naming the setting.
struct SearchController: Sendable {
    let encoder: MiniLMEncoder?
    let store: VectorStore

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
    }

    struct Answer: Encodable {
        var query: String
        var results: [Result]
        var total: Int
    }

    @Sendable func search(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let query = try await SearchQuery.parse(request, fields: ["query", "top_k", "collection", "min_similarity"], defaultTopK: 5)
        let items = try await nearest(query, owner: principal.owner)
        let results = items.map { item in
            Result(id: item.id.uuidString.lowercased(), collection: item.collection, source_kind: item.sourceKind,
                   source_key: item.sourceKey, job_id: item.jobID?.uuidString.lowercased(), image_path: item.imagePath,
                   text: item.text, caption: item.sourceKind == "image" ? item.text : nil,
                   similarity: Self.rounded(item.similarity))
        }
        return try JSONResponse.encode(Answer(query: query.text, results: results, total: results.count))
    }

    /// The owner's items nearest to the query (embedded here), most similar first.
    func nearest(_ query: SearchQuery, owner: String, sourceKind: String? = nil) async throws -> [IndexedItem] {
        guard let encoder else {
            throw APIError.unavailable("search is not available: ATELIER_MODEL_DIR is not set on this API process")
        }
        let vector = encoder.embed(query.text)
        return try await store.search(owner: owner, query: vector, limit: query.topK, collection: query.collection,
                                      sourceKind: sourceKind, minSimilarity: query.minSimilarity)
    }

    /// Similarity to four decimals (the cosine's float noise is not information).
    static func rounded(_ similarity: Double?) -> Double {
        ((similarity ?? 0) * 10_000).rounded() / 10_000
    }
}
