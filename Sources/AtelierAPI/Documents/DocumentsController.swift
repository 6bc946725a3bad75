import AtelierJobs
import AtelierSearch
import Foundation
import Hummingbird

/// Text documents — knowledge points of a question and its answer (docs/clients.md §5):
/// `POST/GET/PUT/DELETE /v1/documents[/{id}]`, each write followed by an `index` job that
/// embeds the document's current text; `POST /v1/documents/search` finds them by meaning with
/// the knowledge-point defaults (top 3, similarity ≥ 0.6).
struct DocumentsController: Sendable {
    let intake: JobIntake
    let documents: DocumentStore
    let searchService: SearchService

    static let maxQuestion = 4000, maxAnswer = 8000

    func register(on group: RouterGroup<APIRequestContext>) {
        group.post("documents", use: create)
        group.get("documents", use: list)
        group.post("documents/search", use: search)
        group.get("documents/:id", use: show)
        group.put("documents/:id", use: update)
        group.delete("documents/:id", use: delete)
    }

    struct View: Encodable {
        var id: String
        var collection: String
        var question: String
        var answer: String
        var metadata: JSONValue
        var indexed: Bool
        var index_job_id: String?
        var created_at: Date
        var updated_at: Date

        init(_ document: Document, indexJob: UUID? = nil) {
            id = document.id.uuidString.lowercased()
            collection = document.collection
            question = document.question
            answer = document.answer
            metadata = JSONValue.parseObject(Data(document.metadata.utf8)).map(JSONValue.object) ?? .object([:])
            indexed = document.indexed
            index_job_id = indexJob?.uuidString.lowercased()
            created_at = document.createdAt
            updated_at = document.updatedAt
        }
    }

    static func body(_ request: Request) async throws -> JSONObject {
        try await JSONBody.object(request, limit: 64 * 1024,
                                  refusal: .validation("the body must be a JSON object like {\"question\": \"…\", \"answer\": \"…\"}"))
    }

    /// A non-blank string field of at most `max` characters; `stored` ones (question, answer)
    /// may not hold NUL, which PostgreSQL cannot store.
    static func text(_ object: JSONObject, _ field: String, max: Int, required: Bool, stored: Bool = true) throws -> String? {
        guard let value = object[field], !value.isNull else {
            if required { throw APIError.validation("\(field) is required", field: field) }
            return nil
        }
        // Counted as the document counts (`maxLength`: code points of the string sent), before
        // trimming: counted after it, in grapheme clusters, a longer string than it allows passed.
        guard let raw = value.string, raw.unicodeScalars.count <= max,
              case let text = raw.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw APIError.validation("\(field) must be a non-empty string of at most \(max) characters", field: field)
        }
        guard !stored || !text.utf8.contains(0) else {
            throw APIError.validation("\(field) must not contain NUL characters", field: field)
        }
        return text
    }

    static func metadata(_ object: JSONObject) throws -> String? {
        if let value = object["metadata"], value.nulPath(at: "metadata") != nil {
            throw APIError.validation("metadata must not contain NUL characters, in keys or values", field: "metadata")
        }
        do {
            return try IndexJob.metadataJSON(object["metadata"])
        } catch {
            throw APIError.validation(error)
        }
    }

    /// `?collection=`: a collection name (letters, digits, `_ . -`, at most 64), as documents are stored under.
    static func collectionFilter(_ value: Substring?) throws -> String? {
        guard let value else { return nil }
        guard IndexJob.isCollectionName(String(value)) else {
            throw APIError.validation("collection must be 1–64 letters, digits, '_', '.' or '-'", field: "collection")
        }
        return String(value)
    }

    static func checkFields(_ object: JSONObject, allowed: Set<String>) throws {
        if let unknown = JSONBody.unknownField(in: object, allowed: allowed) {
            throw APIError.validation("unknown field \(unknown.prefix(40)); fields are \(allowed.sorted().joined(separator: ", "))",
                                      field: String(unknown.prefix(64)))
        }
    }

    func documentID(_ context: APIRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw APIError.notFound("no such document")
        }
        return id
    }

    func enqueueIndex(_ id: UUID, admitted: JobIntake.Admission, requestID: String) async throws -> UUID {
        try await intake.enqueue(IndexJob.self, .document(id), admitted: admitted, requestID: requestID)
    }

    @Sendable func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let object = try await Self.body(request)
        try Self.checkFields(object, allowed: ["question", "answer", "collection", "metadata"])
        let question = try Self.text(object, "question", max: Self.maxQuestion, required: true)!
        let answer = try Self.text(object, "answer", max: Self.maxAnswer, required: true)!
        let collection = try Self.text(object, "collection", max: 64, required: false) ?? "documents"
        guard IndexJob.isCollectionName(collection) else {
            throw APIError.validation("collection must be letters, digits, '_', '.' or '-'", field: "collection")
        }
        let metadata = try Self.metadata(object) ?? "{}"
        // The index job's quota before the document: a refused request writes nothing.
        let admission = try await intake.admit(owner: principal.owner)
        let document = try await documents.create(owner: principal.owner, collection: collection, question: question,
                                                  answer: answer, metadata: metadata)
        let job: UUID
        do {
            job = try await enqueueIndex(document.id, admitted: admission, requestID: context.requestID)
        } catch {
            _ = try? await documents.delete(id: document.id, owner: principal.owner)
            throw error
        }
        return try JSONResponse.encode(View(document, indexJob: job), status: .created)
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let query = request.uri.queryParameters
        let page = try PageRequest(query)
        let (found, total) = try await documents.list(owner: principal.owner, collection: try Self.collectionFilter(query["collection"]),
                                                      limit: page.limit, offset: page.offset)
        return try JSONResponse.encode(Page(data: found.map { View($0) }, request: page, total: total))
    }

    @Sendable func show(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard let document = try await documents.find(id: try documentID(context), owner: principal.owner) else {
            throw APIError.notFound("no such document")
        }
        return try JSONResponse.encode(View(document))
    }

    @Sendable func update(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try documentID(context)
        let object = try await Self.body(request)
        try Self.checkFields(object, allowed: ["question", "answer", "metadata"])
        let question = try Self.text(object, "question", max: Self.maxQuestion, required: false)
        let answer = try Self.text(object, "answer", max: Self.maxAnswer, required: false)
        let metadata = try Self.metadata(object)
        guard question != nil || answer != nil || metadata != nil else {
            throw APIError.validation("send question, answer or metadata to change")
        }
        let admission = try await intake.admit(owner: principal.owner)
        guard let document = try await documents.update(id: id, owner: principal.owner, question: question, answer: answer,
                                                        metadata: metadata) else {
            throw APIError.notFound("no such document")
        }
        let job = try await enqueueIndex(id, admitted: admission, requestID: context.requestID)
        return try JSONResponse.encode(View(document, indexJob: job))
    }

    @Sendable func delete(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard try await documents.delete(id: try documentID(context), owner: principal.owner) else {
            throw APIError.notFound("no such document")
        }
        return Response(status: .noContent)
    }

    struct Match: Encodable {
        var document: View
        var similarity: Double
    }

    struct Answer: Encodable {
        var query: String
        var results: [Match]
        var total: Int
    }

    @Sendable func search(_ request: Request, context: APIRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let object = try await Self.body(request)
        try Self.checkFields(object, allowed: ["query", "top_k", "min_similarity", "collection"])
        let query = try Self.text(object, "query", max: SearchQuery.maxQueryLength, required: true, stored: false)!
        let topK = try SearchQuery.integer(object["top_k"], field: "top_k", range: 1...50) ?? 3
        let minimum = try SearchQuery.number(object["min_similarity"], field: "min_similarity", range: 0...1) ?? 0.6
        let collection = try Self.text(object, "collection", max: 64, required: false) ?? "documents"
        guard IndexJob.isCollectionName(collection) else {
            throw APIError.validation("collection must be letters, digits, '_', '.' or '-'", field: "collection")
        }
        let items = try await searchService.nearest(query, owner: principal.owner, limit: topK, collection: collection, minSimilarity: minimum)
        let hits: [(IndexedItem, UUID)] = items.compactMap { item in
            Document.id(fromSourceKey: item.sourceKey).map { (item, $0) }
        }
        let found = Dictionary(uniqueKeysWithValues: try await documents.find(ids: hits.map(\.1), owner: principal.owner).map { ($0.id, $0) })
        var matches: [Match] = []
        for (item, id) in hits {
            guard let document = found[id] else { continue }
            matches.append(Match(document: View(document), similarity: SearchService.rounded(item.similarity)))
        }
        return try JSONResponse.encode(Answer(query: query, results: matches, total: matches.count))
    }
}
