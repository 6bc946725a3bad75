import Foundation
import Logging
import PostgresNIO

/// A knowledge point: a question and its answer, owned, in a collection.
public struct Document: Sendable, Equatable {
    public var id: UUID
    public var owner: String
    public var collection: String
    public var question: String
    public var answer: String
    public var metadata: String
    public var createdAt: Date
    public var updatedAt: Date
    /// Whether the vector store holds this document now (its index job has run).
    public var indexed: Bool

    /// What gets embedded: the question, then the answer.
    public var text: String { question + "\n" + answer }
    public var sourceKey: String { Self.sourceKey(id) }
    public static func sourceKey(_ id: UUID) -> String { "document:\(id.uuidString.lowercased())" }
}

/// `documents` (migration 0006), every query scoped to one owner. Deleting a document deletes
/// its vector in the same transaction; an index job that runs after the delete finds no
/// document and stores nothing.
public struct DocumentStore: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    static let columns = """
        d.id, d.owner, d.collection, d.question, d.answer, d.metadata::text, d.created_at, d.updated_at,
        EXISTS (SELECT 1 FROM indexed_items i WHERE i.owner = d.owner AND i.collection = d.collection
                AND i.source_key = 'document:' || d.id::text) AS indexed
        """

    func decode(_ rows: PostgresRowSequence) async throws -> [Document] {
        var documents: [Document] = []
        for try await (id, owner, collection, question, answer, metadata, created, updated, indexed)
            in rows.decode((UUID, String, String, String, String, String, Date, Date, Bool).self) {
            documents.append(Document(id: id, owner: owner, collection: collection, question: question, answer: answer,
                                      metadata: metadata, createdAt: created, updatedAt: updated, indexed: indexed))
        }
        return documents
    }

    public func create(owner: String, collection: String, question: String, answer: String, metadata: String) async throws -> Document {
        let id = UUID()
        try await client.query("""
            INSERT INTO documents (id, owner, collection, question, answer, metadata)
            VALUES (\(id), \(owner), \(collection), \(question), \(answer), \(metadata)::jsonb)
            """, logger: logger).consume()
        guard let document = try await find(id: id, owner: owner) else { throw DocumentStoreError.vanished }
        return document
    }

    public func find(id: UUID, owner: String) async throws -> Document? {
        try await decode(client.query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM documents d WHERE d.id = $1 AND d.owner = $2",
                          binds: Self.binds(id, owner)), logger: logger)).first
    }

    /// The owner's documents among `ids` (in no particular order), one query.
    public func find(ids: [UUID], owner: String) async throws -> [Document] {
        guard !ids.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(ids)
        binds.append(owner)
        return try await decode(client.query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM documents d WHERE d.id = ANY($1) AND d.owner = $2", binds: binds),
            logger: logger))
    }

    public func list(owner: String, collection: String?, limit: Int, offset: Int) async throws -> (documents: [Document], total: Int) {
        var binds = PostgresBindings()
        binds.append(owner)
        binds.append(collection)
        binds.append(limit)
        binds.append(offset)
        let documents = try await decode(client.query(PostgresQuery(unsafeSQL: """
            SELECT \(Self.columns) FROM documents d
            WHERE d.owner = $1 AND ($2::text IS NULL OR d.collection = $2)
            ORDER BY d.created_at DESC, d.id LIMIT $3 OFFSET $4
            """, binds: binds), logger: logger))
        var total = 0
        for try await count in try await client.query(
            "SELECT count(*)::int FROM documents WHERE owner = \(owner) AND (\(collection)::text IS NULL OR collection = \(collection))",
            logger: logger).decode(Int.self) { total = count }
        return (documents, total)
    }

    /// Changes the given fields; nil when there is no such document of this owner.
    public func update(id: UUID, owner: String, question: String?, answer: String?, metadata: String?) async throws -> Document? {
        let rows = try await client.query("""
            UPDATE documents SET question = coalesce(\(question), question), answer = coalesce(\(answer), answer),
                                 metadata = coalesce(\(metadata)::jsonb, metadata), updated_at = now()
            WHERE id = \(id) AND owner = \(owner) RETURNING id
            """, logger: logger)
        var found = false
        for try await _ in rows { found = true }
        return found ? try await find(id: id, owner: owner) : nil
    }

    /// Deletes the document and its vector together; false when there was none.
    public func delete(id: UUID, owner: String) async throws -> Bool {
        try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                "DELETE FROM documents WHERE id = \(id) AND owner = \(owner) RETURNING collection", logger: logger)
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
