import AtelierAPI
import AtelierAPITestSupport
import Foundation
import XCTest

/// A knowledge point's index job passes the owner's quotas before the point and its five reviews
/// are written: past the limit of jobs waiting or running, creating a point or changing its text
/// is a 429 `{"error"}` and stores nothing (a change of `isInReviewPlan` alone makes no job and
/// still goes through).
final class LearnQuotaAPITests: LearnAPITestCase {
    override var runsWorker: Bool { false }

    override func configure(_ configuration: inout ServerSettings) {
        super.configure(&configuration)
        configuration.api.maxActiveJobsPerOwner = 2
    }

    func testPointsPastTheActiveJobsQuotaAreRefusedAndNotStored() async throws {
        let alice = try await signIn("001111.quota.0001")
        let first = try decode(PointResponse.self, try await call(.POST, "/api/ios/knowledge", as: alice, json: CreatePointRequest(
            question: "One?", answer: "The first.", isInReviewPlan: true))).point
        _ = try decode(PointResponse.self, try await call(.POST, "/api/ios/knowledge", as: alice, json: CreatePointRequest(
            question: "Two?", answer: "The second.", isInReviewPlan: true)))
        try await expect(429, .POST, "/api/ios/knowledge", as: alice,
                         json: CreatePointRequest(question: "Three?", answer: "The third.", isInReviewPlan: true))
        struct Edit: Codable { let answer: String }
        try await expect(429, .PUT, "/api/ios/knowledge/\(first.id)", as: alice, json: Edit(answer: "Changed."))
        struct Plan: Codable { let isInReviewPlan: Bool }
        let moved = try decode(PointResponse.self, try await call(.PUT, "/api/ios/knowledge/\(first.id)", as: alice,
                                                                  json: Plan(isInReviewPlan: false))).point
        XCTAssertFalse(moved.isInReviewPlan)
        XCTAssertEqual(moved.answer, "The first.", "the refused edit changed nothing")
        let points = try decode(PointsResponse.self, try await call(.GET, "/api/ios/knowledge", as: alice)).points
        XCTAssertEqual(points.count, 2, "the refused point was not stored")
        let reviews = try await db.scalar("SELECT count(*)::int FROM reviews", as: Int.self)
        let jobs = try await db.scalar("SELECT count(*)::int FROM jobs", as: Int.self)
        XCTAssertEqual(reviews, 10, "five reviews for each stored point, none for the refused one")
        XCTAssertEqual(jobs, 2, "one index job per stored point")
    }
}
