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

    static let maxQueryLength = 2000

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
        let body = try await request.body.collect(upTo: 64 * 1024)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw APIError.validation("the body must be a JSON object like {\"query\": \"…\", \"top_k\": 5}")
        }
        let allowed: Set<String> = ["query", "top_k", "collection", "min_similarity"]
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw APIError.validation("unknown field \(unknown.prefix(40)); fields are query, top_k, collection, min_similarity", field: unknown)
        }
        guard let query = (object["query"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty else {
            throw APIError.validation("query is required", field: "query")
        }
        guard query.count <= Self.maxQueryLength else {
            throw APIError.validation("query is longer than \(Self.maxQueryLength) characters", field: "query")
        }
        let topK = try Self.integer(object["top_k"], field: "top_k", range: 1...100) ?? 5
        let minimum = try Self.number(object["min_similarity"], field: "min_similarity", range: 0...1) ?? 0
        var collection: String?
        if let value = object["collection"], !(value is NSNull) {
            guard let name = value as? String, (1...64).contains(name.count) else {
                throw APIError.validation("collection must be a name of 1–64 characters", field: "collection")
            }
            collection = name
        }
        guard let encoder else {
            throw APIError.unavailable("search is not available: ATELIER_MODEL_DIR is not set on this API process")
        }
        let vector = encoder.embed(query)
        let items = try await store.search(owner: principal.owner, query: vector, limit: topK, collection: collection,
                                           minSimilarity: minimum)
        let results = items.map { item in
            Result(id: item.id.uuidString.lowercased(), collection: item.collection, source_kind: item.sourceKind,
                   source_key: item.sourceKey, job_id: item.jobID?.uuidString.lowercased(), image_path: item.imagePath,
                   text: item.text, caption: item.sourceKind == "image" ? item.text : nil,
                   similarity: ((item.similarity ?? 0) * 10_000).rounded() / 10_000)
        }
        return try JobsController.json(Answer(query: query, results: results, total: results.count))
    }

    static func integer(_ value: Any?, field: String, range: ClosedRange<Int>) throws -> Int? {
        guard let value, !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, let integer = Int(exactly: number.doubleValue), range.contains(integer) else {
            throw APIError.validation("\(field) must be a whole number within \(range.lowerBound)…\(range.upperBound)", field: field)
        }
        return integer
    }

    static func number(_ value: Any?, field: String, range: ClosedRange<Double>) throws -> Double? {
        guard let value, !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, number.doubleValue.isFinite, range.contains(number.doubleValue) else {
            throw APIError.validation("\(field) must be a number within \(range.lowerBound)…\(range.upperBound)", field: field)
        }
        return number.doubleValue
    }
}
