import AtelierEmbeddings
import AtelierLanes
import AtelierSearch

/// Search by meaning, for every route that offers it (`/v1/search`, `/v1/documents/search`,
/// Mondrian's `/search`): the query embedded in this process — the model loaded once, shared by
/// every request, run in the embeddings lane (``ServerLanes/embeddings``) — and the owner's nearest items from
/// pgvector. Without a model (ATELIER_MODEL_DIR unset) every search answers 503 naming the setting.
package struct SearchService: Sendable {
    let encoder: MiniLMEncoder?
    let store: VectorStore
    /// Where queries are embedded (``ServerLanes/embeddings``).
    let embeddings: WorkLane

    /// The query's embedding.
    func embed(_ text: String) async throws -> [Float] {
        guard let encoder else {
            throw APIError.unavailable("search is not available: ATELIER_MODEL_DIR is not set on this API process")
        }
        return try await embeddings.run { encoder.embed(text) }
    }

    /// The owner's items nearest to `query`, most similar first.
    package func nearest(_ query: SearchQuery, owner: String, sourceKind: String? = nil) async throws -> [IndexedItem] {
        try await nearest(query.text, owner: owner, limit: query.topK, collection: query.collection, sourceKind: sourceKind,
                          minSimilarity: query.minSimilarity)
    }

    package func nearest(_ text: String, owner: String, limit: Int, collection: String?, sourceKind: String? = nil,
                 minSimilarity: Double) async throws -> [IndexedItem] {
        let vector = try await embed(text)
        return try await store.search(owner: owner, query: vector, limit: limit, collection: collection,
                                      sourceKind: sourceKind, minSimilarity: minSimilarity)
    }

    /// Similarity to four decimals (the cosine's float noise is not information).
    package static func rounded(_ similarity: Double?) -> Double {
        ((similarity ?? 0) * 10_000).rounded() / 10_000
    }
}
