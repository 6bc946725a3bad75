import AtelierQueue
import AtelierSearch
import AtelierStorage
import Foundation
import Hummingbird

/// `POST …/search {query, top_k?, …}` → `{query, results, total}`: the caller's indexed items
/// nearest to the query (``SearchService``), an image hit with its photo (``HitPhoto``), each
/// shown as `View`: `/v1/search`'s ``SearchHit``, or an app's own shape (Mondrian's). The view
/// says which request fields it takes, its default `top_k` and which items it shows.
package struct SearchController<View: SearchHitView>: Sendable {
    let service: SearchService
    let queue: JobQueue
    let signer: URLSigner
    let base: PublicBaseURL

    package init(service: SearchService, queue: JobQueue, signer: URLSigner, base: PublicBaseURL) {
        self.service = service
        self.queue = queue
        self.signer = signer
        self.base = base
    }

    package func register(on group: RouterGroup<APIRequestContext>) {
        group.post("search", use: search)
    }

    struct Answer: Encodable {
        var query: String
        var results: [View]
        var total: Int
    }

    @Sendable func search(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let query = try await SearchQuery.parse(request, fields: View.fields, defaultTopK: View.defaultTopK)
        let items = try await service.nearest(query, owner: principal.owner, sourceKind: View.sourceKind)
        let images = items.filter { $0.sourceKind == "image" }.compactMap(\.jobID)
        let photos = try await HitPhoto.lookup(jobs: images, queue: queue, signer: signer, base: base.value(for: request))
        let results = items.compactMap { item in
            View(item, photo: item.sourceKind == "image" ? item.jobID.flatMap { photos[$0] } : nil)
        }
        return try JSONResponse.encode(Answer(query: query.text, results: results, total: results.count))
    }
}

/// How a search route shows a hit: the request fields it takes, its default `top_k`, the kind of
/// item it searches (nil: all), and a hit as its JSON (nil: an item this shape cannot show).
package protocol SearchHitView: Encodable, Sendable {
    static var fields: [String] { get }
    static var defaultTopK: Int { get }
    static var sourceKind: String? { get }
    init?(_ item: IndexedItem, photo: HitPhoto?)
}
