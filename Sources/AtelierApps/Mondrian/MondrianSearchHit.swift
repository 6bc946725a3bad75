import AtelierAPI
import AtelierSearch

/// A hit of Mondrian's `POST /search {query, top_k}` (docs/clients.md §2), served by the same
/// ``SearchController`` as `/v1/search`: the caller's indexed *images* only, so every field the
/// app's `SearchResult` requires is present; `top_k` defaults to 10 (the app's own default).
/// `thumbnail_url` (the app ignores keys it does not know) is a signed variant URL of the hit's
/// photo, as job views carry, and `thumbhash` its placeholder from that job's result; null when
/// the photo's job is gone (`thumbhash` also while it has no result yet).
struct MondrianSearchHit: SearchHitView {
    static let fields = ["query", "top_k"]
    static let defaultTopK = 10
    static let sourceKind: String? = "image"

    var id: String
    var job_id: String
    var image_path: String
    var caption: String
    var similarity: Double
    @NullWhenAbsent var thumbnail_url: String?
    @NullWhenAbsent var thumbhash: String?

    init?(_ item: IndexedItem, photo: HitPhoto?) {
        guard let job = item.jobID, let path = item.imagePath else { return nil }
        id = item.id.uuidString.lowercased()
        job_id = job.uuidString.lowercased()
        image_path = path
        caption = item.text
        similarity = SearchService.rounded(item.similarity)
        thumbnail_url = photo?.thumbnailURL
        thumbhash = photo?.thumbhash
    }
}
