import AtelierDatabase
import Foundation
import Logging
import PostgresNIO

enum VectorStoreError: Error, CustomStringConvertible {
    case noRowReturned
    var description: String { "the upsert returned no row" }
}

/// A row of `indexed_items` as search returns it.
package struct IndexedItem: Sendable, Equatable {
    package var id: UUID
    package var collection: String
    package var sourceKind: String
    package var sourceKey: String
    package var jobID: UUID?
    package var imagePath: String?
    package var text: String
    package var metadata: String
    /// Cosine similarity to the query mapped to 0…1 ((1 + cos) / 2 would hide how far apart
    /// unrelated texts are, so it is cos clamped at 0: 1 = same meaning, 0 = unrelated or opposite).
    package var similarity: Double?
}

/// What to store: one source's text and its unit-length vector.
package struct NewIndexedItem: Sendable {
    package var owner: String
    package var collection: String
    package var sourceKind: String
    package var sourceKey: String
    package var jobID: UUID?
    package var imagePath: String?
    package var text: String
    package var metadata: String
    package var embedding: [Float]

    package init(owner: String, collection: String = "default", sourceKind: String, sourceKey: String, jobID: UUID? = nil,
                imagePath: String? = nil, text: String, metadata: String = "{}", embedding: [Float]) {
        self.owner = owner
        self.collection = collection
        self.sourceKind = sourceKind
        self.sourceKey = sourceKey
        self.jobID = jobID
        self.imagePath = imagePath
        self.text = text
        self.metadata = metadata
        self.embedding = embedding
    }
}

/// Indexed items in PostgreSQL with pgvector (`indexed_items`): upsert by source, nearest
/// neighbours by cosine distance on the HNSW index. Every query is scoped to one owner.
package struct VectorStore: Sendable {
    package let client: PostgresClient
    package let logger: Logger

    package init(database: Database, logger: Logger) {
        self.client = database.client
        self.logger = logger
    }

    /// pgvector's text form, `[0.1,0.2,…]`.
    package static func literal(_ vector: [Float]) -> String {
        "[" + vector.map { String($0) }.joined(separator: ",") + "]"
    }

    /// Inserts the item, or replaces the row of the same owner, collection and source key
    /// (re-indexing a source keeps its id). Returns the row's id.
    @discardableResult
    package func upsert(_ item: NewIndexedItem) async throws -> UUID {
        guard let id = try await upsert(item, onlyIfDocument: nil) else { throw VectorStoreError.noRowReturned }
        return id
    }

    /// The same, but for a document's text: stored only while the owner's document `documentID`
    /// exists (its row is share-locked, so a delete running at the same moment either comes
    /// first — nothing is stored — or waits, then removes this vector too). nil: no document.
    package func upsert(_ item: NewIndexedItem, onlyIfDocument documentID: UUID?) async throws -> UUID? {
        let vector = Self.literal(item.embedding)
        let rows = try await client.query("""
            INSERT INTO indexed_items (id, owner, collection, source_kind, source_key, job_id, image_path, text, metadata, embedding)
            SELECT \(UUID()), \(item.owner), \(item.collection), \(item.sourceKind), \(item.sourceKey), \(item.jobID),
                   \(item.imagePath), \(item.text), \(item.metadata)::jsonb, \(vector)::vector
            WHERE \(documentID)::uuid IS NULL
               OR EXISTS (SELECT 1 FROM documents WHERE id = \(documentID) AND owner = \(item.owner) FOR SHARE)
            ON CONFLICT (owner, collection, source_key) DO UPDATE SET
                source_kind = EXCLUDED.source_kind, job_id = EXCLUDED.job_id, image_path = EXCLUDED.image_path,
                text = EXCLUDED.text, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding, updated_at = now()
            RETURNING id
            """, logger: logger)
        for try await id in rows.decode(UUID.self) { return id }
        return nil
    }

    /// The owner's `limit` items nearest to `query` (unit length), most similar first, within
    /// `collection` when given and at least `minSimilarity` similar.
    /// `sourceKind` ("image" | "text") keeps only items of that kind (nil: both).
    package func search(owner: String, query: [Float], limit: Int, collection: String? = nil, sourceKind: String? = nil,
                       minSimilarity: Double = 0) async throws -> [IndexedItem] {
        let vector = Self.literal(query)
        return try await client.withConnection { connection in
            // Iterative scans: the HNSW index keeps reading until enough rows pass the filters.
            _ = try await connection.query("SET hnsw.iterative_scan = relaxed_order", logger: logger)
            _ = try await connection.query("SET hnsw.ef_search = 100", logger: logger)
            let rows = try await connection.query("""
                SELECT id, collection, source_kind, source_key, job_id, image_path, text, metadata::text,
                       1 - (embedding <=> \(vector)::vector) AS cosine
                FROM indexed_items
                WHERE owner = \(owner) AND (\(collection)::text IS NULL OR collection = \(collection))
                  AND (\(sourceKind)::text IS NULL OR source_kind = \(sourceKind))
                ORDER BY embedding <=> \(vector)::vector
                LIMIT \(limit)
                """, logger: logger)
            var items: [IndexedItem] = []
            for try await (id, collection, kind, key, job, path, text, metadata, cosine)
                in rows.decode((UUID, String, String, String, UUID?, String?, String, String, Double).self) {
                let similarity = max(0, min(1, cosine))
                guard similarity >= minSimilarity else { continue }
                items.append(IndexedItem(id: id, collection: collection, sourceKind: kind, sourceKey: key, jobID: job,
                                         imagePath: path, text: text, metadata: metadata, similarity: similarity))
            }
            // relaxed_order may return near-ties slightly out of order: sort exactly.
            return items.sorted { ($0.similarity ?? 0) > ($1.similarity ?? 0) }
        }
    }

    /// Deletes the owner's item with `sourceKey`; true when there was one.
    @discardableResult
    package func delete(owner: String, collection: String = "default", sourceKey: String) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM indexed_items WHERE owner = \(owner) AND collection = \(collection) AND source_key = \(sourceKey) RETURNING id",
            logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
