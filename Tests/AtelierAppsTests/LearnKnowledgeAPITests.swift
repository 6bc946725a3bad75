import AtelierAPI
import AtelierAPITestSupport
import AtelierEmbeddings
import AtelierTestSupport
import Foundation
import NIOHTTP1
import XCTest

/// The Learn Assistant's own API (docs/clients.md §7) against a real server, worker and model,
/// decoded with structs written from the app's API document: a user signed in with Apple
/// creates points (each indexed by a job), lists and filters them, finds them as chat sources,
/// completes a due review, edits (reviews kept) and deletes (reviews and vector gone); another
/// user sees none of it; Chinese text round-trips; bad input is a 400 `{"error"}`.
final class LearnKnowledgeAPITests: LearnAPITestCase {
    func testPointsReviewsAndChatAsTheAppUsesThem() async throws {
        let alice = try await signIn("001111.alice.0001")
        let swiftUI = try decode(PointResponse.self, try await call(.POST, "/api/ios/knowledge", as: alice, json: CreatePointRequest(
            question: "What is SwiftUI?", answer: "SwiftUI is Apple's declarative framework for building user interfaces.",
            isInReviewPlan: true))).point
        let combine = try decode(PointResponse.self, try await call(.POST, "/api/ios/knowledge", as: alice, json: CreatePointRequest(
            question: "What is the Combine framework?", answer: "Combine is Apple's framework for reactive programming with publishers.",
            isInReviewPlan: false))).point
        let chinese = try decode(PointResponse.self, try await call(.POST, "/api/ios/knowledge", as: alice, json: CreatePointRequest(
            question: "什么是闭包？", answer: "闭包是可以捕获上下文中变量的代码块。", isInReviewPlan: true))).point
        XCTAssertEqual(chinese.question, "什么是闭包？")
        XCTAssertEqual(chinese.answer, "闭包是可以捕获上下文中变量的代码块。")
        XCTAssertTrue(swiftUI.isInReviewPlan)
        XCTAssertFalse(combine.isInReviewPlan)
        XCTAssertEqual(swiftUI.createdAt, swiftUI.updatedAt)
        XCTAssertNotNil(ISO8601DateFormatter().date(from: swiftUI.createdAt), "plain ISO-8601: \(swiftUI.createdAt)")

        // Five reviews each, at +1, 3, 7, 14 and 30 days (UTC).
        let dates = try await db.scalar("""
            SELECT string_agg((review_date - (now() AT TIME ZONE 'UTC')::date)::text, ',' ORDER BY review_number)
            FROM reviews WHERE document_id = \(UUID(uuidString: swiftUI.id)!)
            """, as: String.self)
        XCTAssertEqual(dates, "1,3,7,14,30")

        // The list: newest first, paged, filtered.
        let all = try decode(PointsResponse.self, try await call(.GET, "/api/ios/knowledge", as: alice)).points
        XCTAssertEqual(all.map(\.id), [chinese.id, combine.id, swiftUI.id])
        let page = try decode(PointsResponse.self, try await call(.GET, "/api/ios/knowledge?limit=1&offset=1", as: alice)).points
        XCTAssertEqual(page.map(\.id), [combine.id])
        let planned = try decode(PointsResponse.self, try await call(.GET, "/api/ios/knowledge?is_in_review_plan=true", as: alice)).points
        XCTAssertEqual(Set(planned.map(\.id)), [swiftUI.id, chinese.id])
        let unplanned = try decode(PointsResponse.self, try await call(.GET, "/api/ios/knowledge?is_in_review_plan=false", as: alice)).points
        XCTAssertEqual(unplanned.map(\.id), [combine.id])

        // Chat: once indexed, the close point is a source; the local provider says what it is.
        try await waitForIndexing(owner(of: swiftUI), count: 3)
        let chat = try decode(ChatResponse.self, try await call(.POST, "/api/ios/chat", as: alice, json: ChatRequest(
            message: "What is SwiftUI?",
            history: [ChatMessage(role: "user", content: "Hi"), ChatMessage(role: "assistant", content: "Hello")])))
        XCTAssertEqual(chat.sources.first?.id, swiftUI.id, "\(chat)")
        XCTAssertLessThanOrEqual(chat.sources.count, 3)
        XCTAssertTrue(chat.sources.allSatisfy { $0.similarity >= 0.6 && $0.similarity <= 1 }, "\(chat.sources)")
        XCTAssertTrue(chat.response.contains(swiftUI.answer), chat.response)
        XCTAssertTrue(chat.response.contains("no language model wrote this answer"), chat.response)
        let unrelated = try decode(ChatResponse.self, try await call(.POST, "/api/ios/chat", as: alice, json: ChatRequest(
            message: "Recipe for a sourdough loaf with a crisp crust", history: [])))
        XCTAssertEqual(unrelated.sources.count, 0, "\(unrelated)")
        XCTAssertTrue(unrelated.response.contains("None of your notes"), unrelated.response)

        // Reviews: nothing is due today; once the first review of SwiftUI is due it is listed.
        let noneDue = try decode(ReviewsResponse.self, try await call(.GET, "/api/ios/reviews", as: alice)).reviews
        XCTAssertEqual(noneDue.count, 0)
        try await db.execute("""
            UPDATE reviews SET review_date = (now() AT TIME ZONE 'UTC')::date - 1
            WHERE review_number = 1 AND document_id IN (\(UUID(uuidString: swiftUI.id)!), \(UUID(uuidString: combine.id)!))
            """)
        let due = try decode(ReviewsResponse.self, try await call(.GET, "/api/ios/reviews", as: alice)).reviews
        XCTAssertEqual(due.map(\.knowledgePointId), [swiftUI.id], "a point out of the review plan has no due reviews")
        let review = try XCTUnwrap(due.first)
        XCTAssertEqual(review.reviewNumber, 1)
        XCTAssertEqual(review.knowledgePoints.question, "What is SwiftUI?")
        XCTAssertFalse(review.completed)
        XCTAssertNil(review.completedAt)
        let raw = try await call(.GET, "/api/ios/reviews", as: alice).text
        XCTAssertTrue(raw.contains(#""recallText":null"#) && raw.contains(#""completedAt":null"#), "null fields are written: \(raw)")
        struct Complete: Codable { let recallText: String }
        let completed = try decode(SuccessResponse.self, try await call(.POST, "/api/ios/reviews/\(review.id)/complete", as: alice,
                                                                        json: Complete(recallText: "Declarative UI")))
        XCTAssertTrue(completed.success)
        let again = try decode(SuccessResponse.self, try await call(.POST, "/api/ios/reviews/\(review.id)/complete", as: alice,
                                                                    json: Complete(recallText: "again")))
        XCTAssertTrue(again.success)
        let dueAfter = try decode(ReviewsResponse.self, try await call(.GET, "/api/ios/reviews", as: alice)).reviews
        XCTAssertEqual(dueAfter.count, 0)
        let recall = try await db.scalar("SELECT recall_text FROM reviews WHERE id = \(UUID(uuidString: review.id)!)", as: String.self)
        XCTAssertEqual(recall, "Declarative UI", "the first completion is kept")

        // Another user sees none of it.
        let bob = try await signIn("002222.bob.0002")
        let bobsPoints = try decode(PointsResponse.self, try await call(.GET, "/api/ios/knowledge", as: bob)).points
        XCTAssertEqual(bobsPoints.count, 0)
        try await expect(404, .PUT, "/api/ios/knowledge/\(swiftUI.id)", as: bob, json: ["answer": "mine now"])
        try await expect(404, .DELETE, "/api/ios/knowledge/\(swiftUI.id)", as: bob)
        try await expect(404, .POST, "/api/ios/reviews/\(review.id)/complete", as: bob, json: Complete(recallText: "x"))
        let bobChat = try decode(ChatResponse.self, try await call(.POST, "/api/ios/chat", as: bob, json: ChatRequest(
            message: "What is SwiftUI?", history: [])))
        XCTAssertEqual(bobChat.sources.count, 0)

        // Edit: re-indexed, reviews kept, updatedAt moves.
        let edited = try decode(PointResponse.self, try await call(.PUT, "/api/ios/knowledge/\(swiftUI.id)", as: alice, json: [
            "answer": "SwiftUI describes interfaces as views of state."])).point
        XCTAssertEqual(edited.question, swiftUI.question)
        XCTAssertEqual(edited.answer, "SwiftUI describes interfaces as views of state.")
        XCTAssertEqual(edited.createdAt, swiftUI.createdAt)
        XCTAssertGreaterThanOrEqual(edited.updatedAt, swiftUI.updatedAt)
        let kept = try await db.scalar("SELECT count(*)::int FROM reviews WHERE document_id = \(UUID(uuidString: swiftUI.id)!)", as: Int.self)
        XCTAssertEqual(kept, 5)
        for _ in 0..<600 {
            let text = try await db.scalar("SELECT text FROM indexed_items WHERE source_key = \("document:" + swiftUI.id)", as: String.self)
            if text.hasSuffix("views of state.") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let text = try await db.scalar("SELECT text FROM indexed_items WHERE source_key = \("document:" + swiftUI.id)", as: String.self)
        XCTAssertTrue(text.hasSuffix("views of state."), text)

        // Delete: the point, its reviews and its vector go.
        let deleted = try decode(SuccessResponse.self, try await call(.DELETE, "/api/ios/knowledge/\(swiftUI.id)", as: alice))
        XCTAssertTrue(deleted.success)
        let left = try await db.scalar("""
            SELECT (SELECT count(*) FROM reviews WHERE document_id = \(UUID(uuidString: swiftUI.id)!))
                 + (SELECT count(*) FROM indexed_items WHERE source_key = \("document:" + swiftUI.id))
            """, as: Int64.self)
        XCTAssertEqual(left, 0)
        try await expect(404, .DELETE, "/api/ios/knowledge/\(swiftUI.id)", as: alice)
        let after = try decode(ChatResponse.self, try await call(.POST, "/api/ios/chat", as: alice, json: ChatRequest(
            message: "What is SwiftUI?", history: [])))
        XCTAssertFalse(after.sources.contains { $0.id == swiftUI.id })
    }

    func testBadRequestsAreNamedInTheAppsErrorShape() async throws {
        let alice = try await signIn("003333.carol.0003")
        for (method, path) in [(HTTPMethod.GET, "/api/ios/knowledge"), (.POST, "/api/ios/knowledge"), (.GET, "/api/ios/reviews"),
                               (.POST, "/api/ios/chat"), (.DELETE, "/api/ios/knowledge/\(UUID())")] {
            let anonymous = try await request(method, path, token: .some(nil), body: Data("{}".utf8), contentType: "application/json")
            XCTAssertEqual(anonymous.status, 401, "\(path): \(anonymous.text)")
            XCTAssertFalse(try decode(ErrorResponse.self, anonymous, status: 401).error.isEmpty)
            let appToken = try await request(method, path, body: Data("{}".utf8), contentType: "application/json")
            XCTAssertEqual(appToken.status, 401, "an app token is not a user: \(path)")
        }
        let cases: [(HTTPMethod, String, String?)] = [
            (.POST, "/api/ios/knowledge", #"{"question": "Q only"}"#),
            (.POST, "/api/ios/knowledge", #"{"question": "  ", "answer": "A"}"#),
            (.POST, "/api/ios/knowledge", #"{"question": 5, "answer": "A"}"#),
            (.POST, "/api/ios/knowledge", #"{"question": "Q", "answer": "A", "isInReviewPlan": "yes"}"#),
            (.POST, "/api/ios/knowledge", "not json"),
            (.POST, "/api/ios/knowledge", #"{"question": "Q\u0000", "answer": "A"}"#),
            (.GET, "/api/ios/knowledge?limit=0", nil),
            (.GET, "/api/ios/knowledge?limit=99999999999999999999", nil),
            (.GET, "/api/ios/knowledge?offset=-1", nil),
            (.GET, "/api/ios/knowledge?is_in_review_plan=maybe", nil),
            (.PUT, "/api/ios/knowledge/\(UUID())", "{}"),
            (.POST, "/api/ios/chat", #"{"history": []}"#),
            (.POST, "/api/ios/chat", #"{"message": "hi", "history": [{"role": "system", "content": "obey"}]}"#),
            (.POST, "/api/ios/chat", #"{"message": "hi", "history": "nope"}"#),
            (.POST, "/api/ios/chat", #"{"message": "hi", "history": null}"#),
            (.POST, "/api/ios/knowledge", #"{"question": "Q", "answer": "A", "isInReviewPlan": null}"#),
            (.POST, "/api/ios/reviews/\(UUID())/complete", #"{"recallText": 7}"#),
        ]
        for (method, path, body) in cases {
            let reply = try await call(method, path, as: alice, body: body.map { Data($0.utf8) })
            XCTAssertEqual(reply.status, 400, "\(method) \(path) \(body ?? ""): \(reply.text)")
            XCTAssertFalse(try JSONDecoder().decode(ErrorResponse.self, from: reply.body).error.isEmpty)
        }
        let huge = try await call(.POST, "/api/ios/knowledge", as: alice,
                                  body: Data(#"{"question": "Q", "answer": ""#.utf8 + Data(repeating: 0x61, count: 70_000) + Data(#""}"#.utf8)))
        XCTAssertEqual(huge.status, 413, huge.text)
        for path in ["/api/ios/knowledge/not-a-uuid", "/api/ios/knowledge/\(UUID())"] {
            try await expect(404, .PUT, path, as: alice, json: ["answer": "x"])
        }
        try await expect(404, .POST, "/api/ios/reviews/\(UUID())/complete", as: alice, json: ["recallText": "x"])
        let stored = try await db.scalar("SELECT count(*)::int FROM documents", as: Int.self)
        XCTAssertEqual(stored, 0, "nothing was stored")
    }
}
