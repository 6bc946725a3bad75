import AtelierJobs
import Foundation
import Hummingbird

/// A search request's body, validated the same way for `/v1/search` and Mondrian's `/search`:
/// `query` (required, ≤ 2000 characters), `top_k` (1…100), and where the route allows them
/// `collection` and `min_similarity` (0…1). Unknown fields are a 400 naming the field.
package struct SearchQuery: Sendable {
    static let maxQueryLength = 2000

    package var text: String
    package var topK: Int
    package var collection: String?
    package var minSimilarity: Double

    package static func parse(_ request: Request, fields allowed: [String], defaultTopK: Int) async throws -> SearchQuery {
        let object = try await JSONBody.object(
            request, limit: 64 * 1024, refusal: .validation("the body must be a JSON object like {\"query\": \"…\", \"top_k\": \(defaultTopK)}"))
        if let unknown = JSONBody.unknownField(in: object, allowed: allowed) {
            throw APIError.validation("unknown field \(unknown.prefix(40)); fields are \(allowed.joined(separator: ", "))", field: String(unknown.prefix(40)))
        }
        guard let query = object["query"]?.string?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty else {
            throw APIError.validation("query is required", field: "query")
        }
        guard query.count <= maxQueryLength else {
            throw APIError.validation("query is longer than \(maxQueryLength) characters", field: "query")
        }
        let topK = try integer(object["top_k"], field: "top_k", range: 1...100) ?? defaultTopK
        let minimum = try number(object["min_similarity"], field: "min_similarity", range: 0...1) ?? 0
        var collection: String?
        if let value = object["collection"], !value.isNull {
            guard let name = value.string, IndexJob.isCollectionName(name) else {
                throw APIError.validation("collection must be 1–64 letters, digits, '_', '.' or '-' (as items are indexed under)", field: "collection")
            }
            collection = name
        }
        return SearchQuery(text: query, topK: topK, collection: collection, minSimilarity: minimum)
    }

    static func integer(_ value: JSONValue?, field: String, range: ClosedRange<Int>) throws -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let integer = value.integer, range.contains(integer) else {
            throw APIError.validation("\(field) must be a whole number within \(range.lowerBound)…\(range.upperBound)", field: field)
        }
        return integer
    }

    static func number(_ value: JSONValue?, field: String, range: ClosedRange<Double>) throws -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.double, number.isFinite, range.contains(number) else {
            throw APIError.validation("\(field) must be a number within \(range.lowerBound)…\(range.upperBound)", field: field)
        }
        return number
    }
}
