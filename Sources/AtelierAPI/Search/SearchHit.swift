import AtelierSearch

/// A hit of `POST /v1/search {query, top_k?, collection?, min_similarity?}`: images and texts. An
/// image hit also carries its photo's `thumbnail_url` and `thumbhash` (``HitPhoto``); as every
/// field this answer has no value for, they are left out otherwise.
struct SearchHit: SearchHitView {
    static let fields = ["query", "top_k", "collection", "min_similarity"]
    static let defaultTopK = 5
    static let sourceKind: String? = nil

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

    init(_ item: IndexedItem, photo: HitPhoto?) {
        id = item.id.uuidString.lowercased()
        collection = item.collection
        source_kind = item.sourceKind
        source_key = item.sourceKey
        job_id = item.jobID?.uuidString.lowercased()
        image_path = item.imagePath
        text = item.text
        caption = item.sourceKind == "image" ? item.text : nil
        similarity = SearchService.rounded(item.similarity)
        thumbnail_url = photo?.thumbnailURL
        thumbhash = photo?.thumbhash
    }
}
