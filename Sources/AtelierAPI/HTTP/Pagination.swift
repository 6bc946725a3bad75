import Hummingbird

/// docs/clients.md §4.5 pagination: `?page=&limit=` in (1… and 1…100, 20 by default), `{data,
/// pagination: {page, limit, total, pages, hasNextPage, hasPreviousPage}}` out.
struct Page<Item: Encodable>: Encodable {
    var data: [Item]
    var pagination: Pagination

    init(data: [Item], request: PageRequest, total: Int) {
        self.data = data
        pagination = Pagination(page: request.page, limit: request.limit, total: total)
    }
}

struct Pagination: Encodable {
    var page: Int
    var limit: Int
    var total: Int
    var pages: Int
    var hasNextPage: Bool
    var hasPreviousPage: Bool

    init(page: Int, limit: Int, total: Int) {
        (self.page, self.limit, self.total) = (page, limit, total)
        pages = total == 0 ? 0 : (total + limit - 1) / limit
        hasNextPage = page < pages
        hasPreviousPage = page > 1
    }
}

/// The page a list request asks for.
struct PageRequest {
    var page: Int
    var limit: Int
    var offset: Int { (page - 1) * limit }

    init(_ query: Parameters) throws {
        page = try Self.integer(query["page"].map(String.init), name: "page", default: 1, range: 1...1_000_000)
        limit = try Self.integer(query["limit"].map(String.init), name: "limit", default: 20, range: 1...100)
    }

    static func integer(_ text: String?, name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.validation("\(name) must be a whole number in \(range.lowerBound)…\(range.upperBound)", field: name)
        }
        return value
    }
}
