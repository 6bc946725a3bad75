import AtelierEmbeddings
import AtelierQueue
import AtelierSearch
import AtelierTestSupport
import Foundation
import Logging
import XCTest

/// The vector store on a real PostgreSQL with pgvector, fed by the real model: ranking on a
/// small corpus where the right answer is known, owner isolation, re-indexing replaces,
/// collection and similarity filters.
final class SemanticSearchTests: DatabaseTestCase {
    var store: VectorStore { VectorStore(database: queue.database, logger: Logger(label: "test")) }

    /// The model from ATELIER_MODEL_DIR (./ops/test installs it and sets it), loaded once.
    static let model: Result<MiniLMEncoder, Error> = {
        guard let directory = ProcessInfo.processInfo.environment["ATELIER_MODEL_DIR"] else {
            return .failure(EmbeddingError.missingFile("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model"))
        }
        return Result { try MiniLMEncoder(modelDirectory: URL(fileURLWithPath: directory)) }
    }()

    func encoder() throws -> MiniLMEncoder { try Self.model.get() }

    static let corpus = [
        ("sunset", "A red sunset over the sea, the sky glowing orange above calm water."),
        ("cat", "A small grey cat asleep on a windowsill in the afternoon sun."),
        ("mountain", "Snow-covered mountain peaks under a clear blue winter sky."),
        ("bread", "Fresh loaves of bread cooling on a rack in a bakery."),
        ("city", "A busy city street at night with neon signs and taxis."),
        ("password", "To reset your password, open Settings, tap Account, then Reset Password."),
    ]

    func index(_ owner: String, collection: String = "default") async throws {
        let encoder = try encoder()
        let vectors = encoder.embed(Self.corpus.map(\.1))
        for ((key, text), vector) in zip(Self.corpus, vectors) {
            try await store.upsert(NewIndexedItem(owner: owner, collection: collection, sourceKind: "text", sourceKey: key,
                                                  text: text, embedding: vector))
        }
    }

    func testTheRightItemRanksFirst() async throws {
        try await index("alice")
        let encoder = try encoder()
        let questions = [
            ("evening sky over the ocean", "sunset"),
            ("a kitten sleeping", "cat"),
            ("alpine landscape in winter", "mountain"),
            ("baked goods", "bread"),
            ("urban nightlife", "city"),
            ("how do I change my login credentials?", "password"),
        ]
        for (question, expected) in questions {
            let results = try await store.search(owner: "alice", query: encoder.embed(question), limit: 3)
            XCTAssertEqual(results.first?.sourceKey, expected, "\(question): \(results.map(\.sourceKey))")
            XCTAssertEqual(results.count, 3)
            let similarities = results.compactMap(\.similarity)
            XCTAssertEqual(similarities, similarities.sorted(by: >), "most similar first")
            XCTAssertTrue(similarities.allSatisfy { (0...1).contains($0) })
        }
    }

    func testOwnersNeverSeeEachOthersItems() async throws {
        try await index("alice")
        let encoder = try encoder()
        let bob = try await store.search(owner: "bob", query: encoder.embed("a cat"), limit: 5)
        XCTAssertEqual(bob, [], "bob has indexed nothing")
        try await store.upsert(NewIndexedItem(owner: "bob", sourceKind: "text", sourceKey: "cat",
                                              text: "Bob's dog", embedding: encoder.embed("Bob's dog")))
        let bobAgain = try await store.search(owner: "bob", query: encoder.embed("a cat"), limit: 5)
        XCTAssertEqual(bobAgain.map(\.text), ["Bob's dog"], "same source key, another owner: a separate row")
    }

    func testReindexingASourceReplacesItsRow() async throws {
        let encoder = try encoder()
        let first = try await store.upsert(NewIndexedItem(owner: "alice", sourceKind: "image", sourceKey: "job:1:source/a.jpg",
                                                         text: "a beach", embedding: encoder.embed("a beach")))
        let second = try await store.upsert(NewIndexedItem(owner: "alice", sourceKind: "image", sourceKey: "job:1:source/a.jpg",
                                                          text: "a forest", embedding: encoder.embed("a forest")))
        XCTAssertEqual(first, second, "the row keeps its id")
        let count = try await db.scalar("SELECT count(*)::int FROM indexed_items", as: Int.self)
        XCTAssertEqual(count, 1)
        let results = try await store.search(owner: "alice", query: encoder.embed("trees"), limit: 5)
        XCTAssertEqual(results.map(\.text), ["a forest"])
    }

    func testCollectionAndThresholdFilter() async throws {
        try await index("alice", collection: "photos")
        try await index("alice", collection: "notes")
        let encoder = try encoder()
        let query = encoder.embed("a kitten sleeping")
        let photos = try await store.search(owner: "alice", query: query, limit: 10, collection: "photos")
        XCTAssertEqual(photos.count, Self.corpus.count)
        XCTAssertTrue(photos.allSatisfy { $0.collection == "photos" })
        let close = try await store.search(owner: "alice", query: query, limit: 10, collection: "photos", minSimilarity: 0.4)
        XCTAssertEqual(close.map(\.sourceKey), ["cat"], "only the cat is that close: \(close.map { ($0.sourceKey, $0.similarity ?? 0) })")
        let deleted = try await store.delete(owner: "alice", collection: "photos", sourceKey: "cat")
        XCTAssertTrue(deleted)
        let after = try await store.search(owner: "alice", query: query, limit: 1, collection: "photos")
        XCTAssertNotEqual(after.first?.sourceKey, "cat")
    }
}
