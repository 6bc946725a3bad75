import AtelierEmbeddings
import AtelierQueue
import AtelierSearch
import Foundation
import Logging
import PostgresNIO

/// `atelier bench search`: `count` items in the vector store of one owner (vectors near real
/// sentence embeddings: each is a real embedding of a generated caption plus small noise, so the
/// HNSW graph sees clustered data like a real index), then `samples` searches, each the query
/// embedded by the model plus the pgvector top-5 — p50/p99 of the whole and of the search alone.
struct SearchBench {
    let queue: JobQueue
    let encoder: MiniLMEncoder
    let count: Int
    let samples: Int

    func run() async throws {
        let logger = Logger(label: "atelier.bench.search")
        let store = VectorStore(database: queue.database, logger: logger)
        let existing = try await queue.client.query("SELECT count(*)::int FROM indexed_items WHERE owner = 'bench'", logger: logger)
        var have = 0
        for try await n in existing.decode(Int.self) { have = n }
        if have < count {
            // 512 real embeddings as centres; each stored vector is a centre plus noise, renormalised.
            let centres = encoder.embed(EmbedBenchCommand.sentences(512))
            var generator = SystemRandomNumberGenerator()
            let started = ContinuousClock.now
            let batch = 500
            for start in stride(from: have, to: count, by: batch) {
                var values: [String] = []
                for i in start..<min(count, start + batch) {
                    var v = centres[i % centres.count].map { $0 + Float.random(in: -0.03...0.03, using: &generator) }
                    let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
                    v = v.map { $0 / norm }
                    values.append("('\(UUID())', 'bench', 'default', 'text', 'bench:\(i)', 'item \(i)', '\(VectorStore.literal(v))'::vector)")
                }
                let sql = "INSERT INTO indexed_items (id, owner, collection, source_kind, source_key, text, embedding) VALUES "
                    + values.joined(separator: ",") + " ON CONFLICT DO NOTHING"
                _ = try await queue.client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
            FileHandle.standardError.write(Data("atelier bench search: stored \(count - have) vectors in \(ContinuousClock.now - started)\n".utf8))
            _ = try await queue.client.query("ANALYZE indexed_items", logger: logger)
        }
        let queries = EmbedBenchCommand.sentences(samples).map { "a photo like " + $0 }
        var total: [Double] = [], searchOnly: [Double] = []
        for (index, query) in queries.enumerated() {
            let start = ContinuousClock.now
            let vector = encoder.embed(query)
            let middle = ContinuousClock.now
            let results = try await store.search(owner: "bench", query: vector, limit: 5)
            let end = ContinuousClock.now
            guard results.count == 5 else { throw BenchError("search \(index) returned \(results.count) results") }
            if index >= 5 {  // the first few warm the connection and the index pages
                total.append(Self.ms(end - start))
                searchOnly.append(Self.ms(end - middle))
            }
        }
        var report = BenchReport(scenario: "search")
        report["op"] = "search"
        report["vectors"] = count
        report["samples"] = total.count
        report["p50_ms"] = Self.percentile(total, 0.50)
        report["p99_ms"] = Self.percentile(total, 0.99)
        report["search_p50_ms"] = Self.percentile(searchOnly, 0.50)
        report["search_p99_ms"] = Self.percentile(searchOnly, 0.99)
        report["note"] = "query embedded by MiniLM + pgvector HNSW top-5 (hnsw.ef_search 100, iterative scan), one owner"
        report.print()
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let value = sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        return (value * 100).rounded() / 100
    }
}
