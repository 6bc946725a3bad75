import AtelierEmbeddings
import Foundation
import Synchronization
import XCTest

/// The Swift encoder against `Fixtures/minilm-reference.json`, produced once by
/// sentence-transformers (ops/embeddings/make-reference.py): 50 texts — English, Chinese,
/// punctuation-heavy, accents, control characters, empty-ish, a 330-token paragraph — whose
/// token ids must match exactly and whose vectors must have cosine ≥ 0.9999.
final class MiniLMReferenceTests: XCTestCase {
    struct Reference: Decodable {
        struct Item: Decodable { var text: String; var ids: [Int32]; var embedding: [Float] }
        var max_seq_length: Int
        var dimension: Int
        var items: [Item]
    }

    static let reference: Reference = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/minilm-reference.json")
        return try! JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }()

    /// The model from ATELIER_MODEL_DIR (./ops/test installs it and sets it).
    static let encoder: Result<MiniLMEncoder, Error> = {
        guard let directory = ProcessInfo.processInfo.environment["ATELIER_MODEL_DIR"] else {
            return .failure(EmbeddingError.missingFile("ATELIER_MODEL_DIR is not set: run the tests with ./ops/test, which installs the model"))
        }
        return Result { try MiniLMEncoder(modelDirectory: URL(fileURLWithPath: directory)) }
    }()

    func testTokenIDsMatchTheReferenceExactly() throws {
        let encoder = try Self.encoder.get()
        XCTAssertEqual(encoder.configuration.maxSequenceLength, Self.reference.max_seq_length)
        var mismatches = 0
        for item in Self.reference.items {
            let ids = encoder.tokenIDs(item.text)
            if ids != item.ids {
                mismatches += 1
                XCTFail("\(item.text.debugDescription.prefix(60)): \(ids.prefix(20)) ≠ \(item.ids.prefix(20))")
            }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertTrue(Self.reference.items.contains { $0.ids.count == 256 }, "the long paragraph is cut at 256 ids")
    }

    func testVectorsMatchTheReference() throws {
        try assertMatchesReference(try Self.encoder.get())
    }

    /// The portable OpenBLAS path too (the packed kernel is preferred wherever AVX-512 runs).
    func testOpenBLASPathMatchesTheReference() throws {
        let preferred = try Self.encoder.get()   // fails, naming the setting, when the model is not installed
        let encoder = try MiniLMEncoder(modelDirectory: URL(fileURLWithPath: ProcessInfo.processInfo.environment["ATELIER_MODEL_DIR"]!), kernel: .blas)
        XCTAssertEqual(preferred.kernel, MatrixKernel.preferred)
        XCTAssertEqual(encoder.kernel, .blas)
        try assertMatchesReference(encoder)
    }

    /// Calls from several threads at once share the kernels' thread pool (one call holds it,
    /// the others run on their own thread): every result must equal the one-at-a-time result.
    func testConcurrentCallsAgreeWithSequentialOnes() throws {
        let encoder = try Self.encoder.get()
        let texts = Self.reference.items.prefix(16).map(\.text)
        let expected = encoder.embed(texts, batchSize: 4)
        let results = Mutex<[[[Float]]]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let vectors = encoder.embed(texts, batchSize: 4)
            results.withLock { $0.append(vectors) }
        }
        let all = results.withLock { $0 }
        XCTAssertEqual(all.count, 6)
        for vectors in all { XCTAssertEqual(vectors, expected) }
    }

    private func assertMatchesReference(_ encoder: MiniLMEncoder) throws {
        XCTAssertEqual(encoder.dimension, Self.reference.dimension)
        // One at a time and in batches (padding must not change a vector).
        let single = Self.reference.items.prefix(12).map { encoder.embed($0.text) }
        let batched = encoder.embed(Self.reference.items.map(\.text), batchSize: 8)
        for (index, item) in Self.reference.items.enumerated() {
            let vector = batched[index]
            XCTAssertEqual(vector.count, 384)
            let cosine = zip(vector, item.embedding).reduce(0) { $0 + $1.0 * $1.1 }
            XCTAssertGreaterThanOrEqual(cosine, 0.9999, "\(encoder.kernel): \(item.text.debugDescription.prefix(60))")
            if index < single.count {
                let agreement = zip(single[index], vector).reduce(0) { $0 + $1.0 * $1.1 }
                XCTAssertGreaterThan(agreement, 0.99999, "batched = single for \(item.text.prefix(40))")
            }
        }
    }

    func testMissingModelNamesTheSetting() {
        XCTAssertThrowsError(try MiniLMEncoder(modelDirectory: URL(fileURLWithPath: "/nonexistent/model"))) { error in
            XCTAssertTrue("\(error)".contains("ATELIER_MODEL_DIR"), "\(error)")
        }
    }
}
