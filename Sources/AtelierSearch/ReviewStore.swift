import AtelierDatabase
import Foundation
import Logging
import PostgresNIO

/// A scheduled review of a knowledge point, with the point's question and answer.
package struct Review: Sendable, Equatable {
    package var id: UUID
    package var documentID: UUID
    package var number: Int
    /// The day it is due, `YYYY-MM-DD` (UTC).
    package var date: String
    package var completedAt: Date?
    package var recallText: String?
    package var question: String
    package var answer: String
}

/// `reviews`: spaced review of documents in a review plan. Reviews are made
/// with their document (``DocumentStore/create(owner:collection:question:answer:metadata:inReviewPlan:reviewsAfterDays:)``),
/// kept when it is edited and deleted with it (ON DELETE CASCADE). Every query is scoped to one owner.
package struct ReviewStore: Sendable {
    package let client: PostgresClient
    package let logger: Logger

    /// The Learn Assistant's plan: reviews 1, 3, 7, 14 and 30 days after a point is made.
    package static let spacing = [1, 3, 7, 14, 30]

    package init(database: Database, logger: Logger) {
        self.client = database.client
        self.logger = logger
    }

    static let columns = """
        r.id, r.document_id, r.review_number::int, to_char(r.review_date, 'YYYY-MM-DD'), r.completed_at, r.recall_text, d.question, d.answer
        """

    static func decode(_ rows: PostgresRowSequence) async throws -> [Review] {
        var reviews: [Review] = []
        for try await (id, document, number, date, completedAt, recall, question, answer)
            in rows.decode((UUID, UUID, Int, String, Date?, String?, String, String).self) {
            reviews.append(Review(id: id, documentID: document, number: number, date: date, completedAt: completedAt,
                                  recallText: recall, question: question, answer: answer))
        }
        return reviews
    }

    /// Inserts one review per entry of `afterDays` (numbered from 1), inside the caller's transaction.
    static func schedule(document: UUID, owner: String, afterDays: [Int], on connection: PostgresConnection, logger: Logger) async throws {
        let ids = afterDays.map { _ in UUID() }
        try await connection.query("""
            INSERT INTO reviews (id, document_id, owner, review_number, review_date)
            SELECT id, \(document), \(owner), number::smallint, (now() AT TIME ZONE 'UTC')::date + days
            FROM unnest(\(ids)::uuid[], \(afterDays)::int[]) WITH ORDINALITY AS plan(id, days, number)
            """, logger: logger).consume()
    }

    /// The owner's reviews not yet completed and due by today (UTC), of documents in `collection`
    /// that are in the review plan: earliest first, at most `limit`.
    package func due(owner: String, collection: String, limit: Int = 500) async throws -> [Review] {
        let rows = try await client.query("""
            SELECT \(unescaped: Self.columns)
            FROM reviews r JOIN documents d ON d.id = r.document_id
            WHERE r.owner = \(owner) AND r.completed_at IS NULL AND r.review_date <= (now() AT TIME ZONE 'UTC')::date
              AND d.collection = \(collection) AND d.in_review_plan
            ORDER BY r.review_date, d.created_at, r.review_number
            LIMIT \(limit)
            """, logger: logger)
        return try await Self.decode(rows)
    }

    /// Marks the owner's review completed with what the user recalled. The first completion is
    /// kept: completing it again changes nothing (a client's retry is not an error). False when
    /// the owner has no such review in `collection`.
    package func complete(id: UUID, owner: String, collection: String, recallText: String?) async throws -> Bool {
        let rows = try await client.query("""
            WITH target AS (
                SELECT r.id FROM reviews r JOIN documents d ON d.id = r.document_id
                WHERE r.id = \(id) AND r.owner = \(owner) AND d.collection = \(collection)
            ), done AS (
                UPDATE reviews SET completed_at = now(), recall_text = \(recallText)
                WHERE id IN (SELECT id FROM target) AND completed_at IS NULL
            )
            SELECT count(*)::int FROM target
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count > 0 }
        return false
    }
}
