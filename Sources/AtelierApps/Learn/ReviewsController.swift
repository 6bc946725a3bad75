import AtelierAPI
import AtelierSearch
import Foundation
import Hummingbird

/// The Learn Assistant's spaced review (docs/clients.md §7):
///
/// - `GET /api/ios/reviews` → `{reviews: [Review]}`: the user's reviews not yet completed and due
///   today (UTC) or earlier, of points in the review plan, earliest first, each with its point's
///   `knowledgePoints: {question, answer}`;
/// - `POST /api/ios/reviews/:id/complete {recallText}` → `{success: true}`. Completing a review
///   again keeps the first completion (a retried request is not an error); another user's id is 404.
struct ReviewsController: Sendable {
    let routes: LearnRoutes
    let reviews: ReviewStore

    static let base = "api/ios/reviews"
    static let maxRecall = 8000

    func register(on router: Router<APIRequestContext>) {
        router.get(RouterPath(Self.base)) { request, context in await LearnRoutes.answer(context) { try await due(request) } }
        router.post(RouterPath(Self.base + "/:id/complete")) { request, context in
            await LearnRoutes.answer(context) { try await complete(request, context) }
        }
    }

    /// A review as the app decodes it; `completedAt` and `recallText` are written as `null` when unset.
    struct View: Encodable {
        struct PointPart: Encodable { var question: String; var answer: String }
        var id: String
        var knowledgePointId: String
        var reviewNumber: Int
        var reviewDate: String
        var completed: Bool
        @NullWhenAbsent var completedAt: String?
        @NullWhenAbsent var recallText: String?
        var knowledgePoints: PointPart

        init(_ review: Review) {
            id = review.id.uuidString.lowercased()
            knowledgePointId = review.documentID.uuidString.lowercased()
            reviewNumber = review.number
            reviewDate = review.date
            completed = review.completedAt != nil
            completedAt = review.completedAt.map(LearnRoutes.timestamp)
            recallText = review.recallText
            knowledgePoints = PointPart(question: review.question, answer: review.answer)
        }

        enum CodingKeys: String, CodingKey {
            case id, knowledgePointId, reviewNumber, reviewDate, completed, completedAt, recallText, knowledgePoints
        }
    }
    struct Reviews: Encodable { var reviews: [View] }

    func due(_ request: Request) async throws -> Response {
        let user = try await routes.user(request)
        let found = try await reviews.due(owner: user.owner, collection: LearnRoutes.collection)
        return try JSONResponse.encode(Reviews(reviews: found.map(View.init)))
    }

    func complete(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let user = try await routes.user(request)
        let id = try LearnRoutes.id(context, "Review")
        let object = try await LearnRoutes.object(request)
        // What the user recalled may be empty ("I forgot" is an answer too); absent or null is no text.
        var recall: String?
        if let value = object["recallText"], !value.isNull {
            guard let text = value.string else { throw LearnError.badRequest("recallText must be a string") }
            guard text.unicodeScalars.count <= Self.maxRecall, !text.utf8.contains(0) else {
                throw LearnError.badRequest("recallText must be at most \(Self.maxRecall) characters, without NUL")
            }
            recall = text
        }
        guard try await reviews.complete(id: id, owner: user.owner, collection: LearnRoutes.collection, recallText: recall) else {
            throw LearnError(status: .notFound, message: "Review not found")
        }
        return try JSONResponse.encode(KnowledgeController.Success())
    }
}
