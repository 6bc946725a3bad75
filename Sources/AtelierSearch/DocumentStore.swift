import AtelierDatabase
import Foundation
import Logging
import PostgresNIO

/// A knowledge point: a question and its answer, owned, in a collection.
package struct Document: Sendable, Equatable {
    package var id: UUID
    package var owner: String
    package var collection: String
    package var question: String
    package var answer: String
    package var metadata: String
    package var createdAt: Date
    package var updatedAt: Date
    /// Whether the vector store holds this document now (its index job has run).
    package var indexed: Bool
    /// In its owner's review plan (the Learn Assistant's points; false for others).
    package var inReviewPlan: Bool = false

    /// What gets embedded: the question, then the answer.
    package var text: String { question + "\n" + answer }
    package var sourceKey: String { Self.sourceKey(id) }
    package static func sourceKey(_ id: UUID) -> String { "document:\(id.uuidString.lowercased())" }
    /// The document an indexed item's source key names; nil for other sources (an image, a text).
    package static func id(fromSourceKey key: String) -> UUID? {
        key.hasPrefix("document:") ? UUID(uuidString: String(key.dropFirst("document:".count))) : nil
    }
}

/// `documents`, every query scoped to one owner. Deleting a document deletes
/// its vector in the same transaction; an index job that runs after the delete finds no
/// document and stores nothing.
package struct DocumentStore: Sendable {
    package let client: PostgresClient
    package let logger: Logger

    package init(database: Database, logger: Logger) {
        self.client = database.client
        self.logger = logger
    }

    static let columns = """
        d.id, d.owner, d.collection, d.question, d.answer, d.metadata::text, d.created_at, d.updated_at, d.in_review_plan,
        EXISTS (SELECT 1 FROM indexed_items i WHERE i.owner = d.owner AND i.collection = d.collection
                AND i.source_key = 'document:' || d.id::text) AS indexed
        """

    func decode(_ rows: PostgresRowSequence) async throws -> [Document] {
        var documents: [Document] = []
        for try await (id, owner, collection, question, answer, metadata, created, updated, inReviewPlan, indexed)
            in rows.decode((UUID, String, String, String, String, String, Date, Date, Bool, Bool).self) {
            documents.append(Document(id: id, owner: owner, collection: collection, question: question, answer: answer,
                                      metadata: metadata, createdAt: created, updatedAt: updated, indexed: indexed,
                                      inReviewPlan: inReviewPlan))
        }
        return documents
    }

    /// Stores a new document; with `reviewsAfterDays`, its reviews too (``ReviewStore``), one
    /// per entry, due that many days after today (UTC) — all in one transaction.
    package func create(owner: String, collection: String, question: String, answer: String, metadata: String,
                       inReviewPlan: Bool = false, reviewsAfterDays: [Int] = []) async throws -> Document {
        let id = UUID()
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("""
                INSERT INTO documents (id, owner, collection, question, answer, metadata, in_review_plan)
                VALUES (\(id), \(owner), \(collection), \(question), \(answer), \(metadata)::jsonb, \(inReviewPlan))
                """, logger: logger).consume()
            if !reviewsAfterDays.isEmpty {
                try await ReviewStore.schedule(document: id, owner: owner, afterDays: reviewsAfterDays, on: connection, logger: logger)
            }
        }
        guard let document = try await find(id: id, owner: owner) else { throw DocumentStoreError.vanished }
        return document
    }

    package func find(id: UUID, owner: String) async throws -> Document? {
        try await decode(client.query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM documents d WHERE d.id = $1 AND d.owner = $2",
                          binds: Self.binds(id, owner)), logger: logger)).first
    }

    /// The owner's documents among `ids` (in no particular order), one query.
    package func find(ids: [UUID], owner: String) async throws -> [Document] {
        guard !ids.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(ids)
        binds.append(owner)
        return try await decode(client.query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM documents d WHERE d.id = ANY($1) AND d.owner = $2", binds: binds),
            logger: logger))
    }

    /// The owner's documents, newest first, within `collection` and, when given, only those in
    /// (or out of) the review plan.
    package func list(owner: String, collection: String?, inReviewPlan: Bool? = nil, limit: Int, offset: Int,
                     counting: Bool = true) async throws -> (documents: [Document], total: Int) {
        var binds = PostgresBindings()
        binds.append(owner)
        binds.append(collection)
        binds.append(limit)
        binds.append(offset)
        binds.append(inReviewPlan)
        let documents = try await decode(client.query(PostgresQuery(unsafeSQL: """
            SELECT \(Self.columns) FROM documents d
            WHERE d.owner = $1 AND ($2::text IS NULL OR d.collection = $2) AND ($5::boolean IS NULL OR d.in_review_plan = $5)
            ORDER BY d.created_at DESC, d.id LIMIT $3 OFFSET $4
            """, binds: binds), logger: logger))
        var total = 0
        guard counting else { return (documents, 0) }
        for try await count in try await client.query("""
            SELECT count(*)::int FROM documents WHERE owner = \(owner) AND (\(collection)::text IS NULL OR collection = \(collection))
              AND (\(inReviewPlan)::boolean IS NULL OR in_review_plan = \(inReviewPlan))
            """, logger: logger).decode(Int.self) { total = count }
        return (documents, total)
    }

    /// Changes the given fields; nil when there is no such document of this owner.
    package func update(id: UUID, owner: String, question: String?, answer: String?, metadata: String?,
                       inReviewPlan: Bool? = nil, collection: String? = nil) async throws -> Document? {
        let rows = try await client.query("""
            UPDATE documents SET question = coalesce(\(question), question), answer = coalesce(\(answer), answer),
                                 metadata = coalesce(\(metadata)::jsonb, metadata),
                                 in_review_plan = coalesce(\(inReviewPlan), in_review_plan), updated_at = now()
            WHERE id = \(id) AND owner = \(owner) AND (\(collection)::text IS NULL OR collection = \(collection)) RETURNING id
            """, logger: logger)
        var found = false
        for try await _ in rows { found = true }
        return found ? try await find(id: id, owner: owner) : nil
    }

    /// Deletes the document, its vector and its reviews together; false when there was none
    /// (of this owner, and in `collection` when given).
    package func delete(id: UUID, owner: String, collection: String? = nil) async throws -> Bool {
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query("""
                DELETE FROM documents WHERE id = \(id) AND owner = \(owner) AND (\(collection)::text IS NULL OR collection = \(collection))
                RETURNING collection
                """, logger: logger)
            var collection: String?
            for try await name in rows.decode(String.self) { collection = name }
            guard let collection else { return false }
            try await connection.query("""
                DELETE FROM indexed_items WHERE owner = \(owner) AND collection = \(collection) AND source_key = \(Document.sourceKey(id))
                """, logger: logger).consume()
            return true
        }
    }

    static func binds(_ id: UUID, _ owner: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(owner)
        return binds
    }
}

enum DocumentStoreError: Error, CustomStringConvertible {
    case vanished
    var description: String { "the document was not found right after it was written" }
}

extension PostgresRowSequence {
    func consume() async throws { for try await _ in self {} }
}
