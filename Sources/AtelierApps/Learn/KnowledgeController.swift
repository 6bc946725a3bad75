import AtelierAPI
import AtelierJobs
import AtelierSearch
import Foundation
import Hummingbird

/// The Learn Assistant's knowledge points (docs/clients.md §7), exactly as its document prints them:
///
/// - `GET /api/ios/knowledge?limit=&offset=&is_in_review_plan=` → `{points: [Point]}`, newest first;
/// - `POST /api/ios/knowledge {question, answer, isInReviewPlan}` → `{point}`, with its five
///   reviews (+1, 3, 7, 14, 30 days) and an `index` job that embeds it: it is a chat source
///   once that job succeeds;
/// - `PUT /api/ios/knowledge/:id` (any of the three fields) → `{point}`, re-indexed, reviews kept;
/// - `DELETE /api/ios/knowledge/:id` → `{success: true}`; its reviews and vector go with it.
///
/// Points are the user's documents in the collection `learn`; another user's id is 404.
struct KnowledgeController: Sendable {
    let routes: LearnRoutes
    let intake: JobIntake
    let documents: DocumentStore

    static let base = "api/ios/knowledge"
    static let maxQuestion = 4000, maxAnswer = 8000, maxLimit = 100

    func register(on router: Router<APIRequestContext>) {
        router.get(RouterPath(Self.base)) { request, context in await LearnRoutes.answer(context) { try await list(request) } }
        router.post(RouterPath(Self.base)) { request, context in await LearnRoutes.answer(context) { try await create(request, context) } }
        router.put(RouterPath(Self.base + "/:id")) { request, context in await LearnRoutes.answer(context) { try await update(request, context) } }
        router.delete(RouterPath(Self.base + "/:id")) { request, context in await LearnRoutes.answer(context) { try await delete(request, context) } }
    }

    /// A knowledge point as the app decodes it.
    struct Point: Encodable {
        var id: String
        var userId: String
        var question: String
        var answer: String
        var createdAt: String
        var updatedAt: String
        var isInReviewPlan: Bool

        init(_ document: Document, user: LearnUser) {
            id = document.id.uuidString.lowercased()
            userId = user.id.uuidString.lowercased()
            question = document.question
            answer = document.answer
            createdAt = LearnRoutes.timestamp(document.createdAt)
            updatedAt = LearnRoutes.timestamp(document.updatedAt)
            isInReviewPlan = document.inReviewPlan
        }
    }
    struct Points: Encodable { var points: [Point] }
    struct OnePoint: Encodable { var point: Point }
    struct Success: Encodable { var success = true }

    func list(_ request: Request) async throws -> Response {
        let user = try await routes.user(request)
        let query = request.uri.queryParameters
        let limit = try Self.integer(query["limit"], name: "limit", range: 1...Self.maxLimit) ?? 20
        let offset = try Self.integer(query["offset"], name: "offset", range: 0...1_000_000) ?? 0
        var inPlan: Bool?
        if let text = query["is_in_review_plan"] {
            switch text {
            case "true": inPlan = true
            case "false": inPlan = false
            default: throw LearnError.badRequest("is_in_review_plan must be true or false")
            }
        }
        let (found, _) = try await documents.list(owner: user.owner, collection: LearnRoutes.collection, inReviewPlan: inPlan,
                                                  limit: limit, offset: offset, counting: false)
        return try JSONResponse.encode(Points(points: found.map { Point($0, user: user) }))
    }

    func create(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let user = try await routes.user(request)
        let object = try await LearnRoutes.object(request)
        let question = try LearnRoutes.text(object, "question", max: Self.maxQuestion)
        let answer = try LearnRoutes.text(object, "answer", max: Self.maxAnswer)
        guard let question, let answer else { throw LearnError.badRequest("question and answer are required") }
        let inPlan = try LearnRoutes.bool(object, "isInReviewPlan") ?? true
        // The index job's quota before the point and its reviews: a refused request writes nothing.
        let admission = try await intake.admit(owner: user.owner)
        let document = try await documents.create(owner: user.owner, collection: LearnRoutes.collection, question: question,
                                                  answer: answer, metadata: "{}", inReviewPlan: inPlan,
                                                  reviewsAfterDays: ReviewStore.spacing)
        do {
            _ = try await intake.enqueue(IndexJob.self, .document(document.id), admitted: admission, requestID: context.requestID)
        } catch {
            // Not indexed means not findable: the point is not kept half made.
            _ = try? await documents.delete(id: document.id, owner: user.owner)
            throw error
        }
        return try JSONResponse.encode(OnePoint(point: Point(document, user: user)))
    }

    func update(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let user = try await routes.user(request)
        let id = try LearnRoutes.id(context, "Knowledge point")
        let object = try await LearnRoutes.object(request)
        let question = try LearnRoutes.text(object, "question", max: Self.maxQuestion)
        let answer = try LearnRoutes.text(object, "answer", max: Self.maxAnswer)
        let inPlan = try LearnRoutes.bool(object, "isInReviewPlan")
        guard question != nil || answer != nil || inPlan != nil else {
            throw LearnError.badRequest("Send question, answer or isInReviewPlan to change")
        }
        // A new text is indexed again: its job's quota before the change is written.
        let admission = question != nil || answer != nil ? try await intake.admit(owner: user.owner) : nil
        guard let document = try await documents.update(id: id, owner: user.owner, question: question, answer: answer, metadata: nil,
                                                        inReviewPlan: inPlan, collection: LearnRoutes.collection) else {
            throw LearnError(status: .notFound, message: "Knowledge point not found")
        }
        if let admission {
            _ = try await intake.enqueue(IndexJob.self, .document(id), admitted: admission, requestID: context.requestID)
        }
        return try JSONResponse.encode(OnePoint(point: Point(document, user: user)))
    }

    func delete(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let user = try await routes.user(request)
        let id = try LearnRoutes.id(context, "Knowledge point")
        guard try await documents.delete(id: id, owner: user.owner, collection: LearnRoutes.collection) else {
            throw LearnError(status: .notFound, message: "Knowledge point not found")
        }
        return try JSONResponse.encode(Success())
    }

    /// A query integer within `range`; nil when absent.
    static func integer(_ text: Substring?, name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw LearnError.badRequest("\(name) must be an integer within \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}
