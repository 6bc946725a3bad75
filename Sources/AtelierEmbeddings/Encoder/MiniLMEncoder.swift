import CAtelierEmbeddingKernels
import Foundation

/// all-MiniLM-L6-v2 (or any BERT-family sentence-transformers checkpoint of the same layout) in
/// Swift: WordPiece ids → embeddings (word + position + type 0, LayerNorm) → N encoder layers
/// (self-attention with the padding mask, exact erf GELU, post-LayerNorm) → mean pooling over
/// the real tokens → L2 normalisation. Linear layers run on weights packed once at load
/// (``MatrixKernel``), split across cores; a batch is padded to its longest text.
/// Immutable after loading: share one instance.
package final class MiniLMEncoder: Sendable {
    package let configuration: MiniLMConfiguration
    package let tokenizer: WordPieceTokenizer
    package let kernel: MatrixKernel
    private let file: SafeTensors
    private let embeddings: Embeddings
    private let layers: [Layer]

    package var dimension: Int { configuration.hiddenSize }

    struct Norm: @unchecked Sendable {
        let gamma: UnsafeBufferPointer<Float>, beta: UnsafeBufferPointer<Float>
    }

    struct Embeddings: @unchecked Sendable {
        let words: UnsafeBufferPointer<Float>, positions: UnsafeBufferPointer<Float>, types: UnsafeBufferPointer<Float>
        let norm: Norm
    }

    struct Layer: Sendable {
        /// Query, key and value stacked: one product gives [rows, 3 × hidden].
        let queryKeyValue: LinearLayer, attentionOutput: LinearLayer
        let attentionNorm: Norm
        let intermediate: LinearLayer, output: LinearLayer
        let outputNorm: Norm
    }

    /// Caps the cores one embedding call uses (process-wide); 0 means all.
    package static func limitThreads(to count: Int) {
        EmbeddingConcurrency.limit(to: count)
    }

    /// Loads `model.safetensors`, `vocab.txt`, `config.json` and `sentence_bert_config.json`
    /// from `directory` (ATELIER_MODEL_DIR) and lays the linear weights out for `kernel`.
    package init(modelDirectory directory: URL, kernel: MatrixKernel = .preferred) throws(EmbeddingError) {
        for name in ["model.safetensors", "vocab.txt", "config.json"]
        where !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            throw .missingFile("the embedding model is not at \(directory.path): \(name) is missing (set ATELIER_MODEL_DIR to the folder holding model.safetensors, vocab.txt and config.json; ./ops/run installs it)")
        }
        let configuration = try MiniLMConfiguration(modelDirectory: directory)
        let file = try SafeTensors(contentsOf: directory.appendingPathComponent("model.safetensors"))
        let h = configuration.hiddenSize, i = configuration.intermediateSize
        func linear(_ names: [String], _ inputs: Int, _ outputs: Int) throws(EmbeddingError) -> LinearLayer {
            var parts: [(weight: UnsafeBufferPointer<Float>, bias: UnsafeBufferPointer<Float>)] = []
            for name in names {
                parts.append((try file.tensor(name + ".weight", shape: [outputs, inputs]).values,
                              try file.tensor(name + ".bias", shape: [outputs]).values))
            }
            return LinearLayer(stacking: parts, inputs: inputs, kernel: kernel)
        }
        func norm(_ name: String) throws(EmbeddingError) -> Norm {
            Norm(gamma: try file.tensor(name + ".weight", shape: [h]).values, beta: try file.tensor(name + ".bias", shape: [h]).values)
        }
        embeddings = Embeddings(
            words: try file.tensor("embeddings.word_embeddings.weight", shape: [configuration.vocabularySize, h]).values,
            positions: try file.tensor("embeddings.position_embeddings.weight", shape: [configuration.maxPositions, h]).values,
            types: try file.tensor("embeddings.token_type_embeddings.weight", shape: [2, h]).values,
            norm: try norm("embeddings.LayerNorm"))
        var layers: [Layer] = []
        for index in 0..<configuration.layers {
            let p = "encoder.layer.\(index)."
            layers.append(Layer(
                queryKeyValue: try linear(["query", "key", "value"].map { p + "attention.self." + $0 }, h, h),
                attentionOutput: try linear([p + "attention.output.dense"], h, h),
                attentionNorm: try norm(p + "attention.output.LayerNorm"),
                intermediate: try linear([p + "intermediate.dense"], h, i), output: try linear([p + "output.dense"], i, h),
                outputNorm: try norm(p + "output.LayerNorm")))
        }
        self.layers = layers
        self.file = file
        self.configuration = configuration
        self.kernel = kernel
        self.tokenizer = try WordPieceTokenizer(vocabularyFile: directory.appendingPathComponent("vocab.txt"))
    }

    /// Token ids as the model sees them: `[CLS]` … `[SEP]`, at most `maxSequenceLength`.
    package func tokenIDs(_ text: String) -> [Int32] {
        tokenizer.encode(text, maxLength: configuration.maxSequenceLength)
    }

    /// Unit-length embeddings of `texts`, in order. Texts are grouped by length into batches of
    /// up to `batchSize`, so padding to a batch's longest text costs little.
    package func embed(_ texts: [String], batchSize: Int = 32) -> [[Float]] {
        let ids = texts.map(tokenIDs)
        let order = ids.indices.sorted { ids[$0].count < ids[$1].count }
        var vectors = [[Float]](repeating: [], count: ids.count)
        for start in stride(from: 0, to: order.count, by: max(1, batchSize)) {
            let chunk = Array(order[start..<min(order.count, start + max(1, batchSize))])
            for (index, vector) in zip(chunk, embed(ids: chunk.map { ids[$0] })) { vectors[index] = vector }
        }
        return vectors
    }

    package func embed(_ text: String) -> [Float] { embed([text])[0] }

    /// Rows (texts × padded length) one forward pass works on at most: 128 per core. Larger
    /// batches run as several passes so activations stay in the per-core caches (at batch 64 of
    /// short sentences, one pass over all the rows was slower per sentence than passes of 128
    /// rows per core: docs/benchmarks/embeddings.md, what changed).
    static var rowsPerPass: Int { 128 * Int(aek_threads()) }

    /// Embeddings of already tokenised texts (each with `[CLS]`/`[SEP]`).
    package func embed(ids batch: [[Int32]]) -> [[Float]] {
        var vectors: [[Float]] = []
        vectors.reserveCapacity(batch.count)
        var start = 0
        while start < batch.count {
            var end = start + 1, longest = batch[start].count
            while end < batch.count, max(longest, batch[end].count) * (end - start + 1) <= Self.rowsPerPass {
                longest = max(longest, batch[end].count)
                end += 1
            }
            vectors += pass(Array(batch[start..<end]))
            start = end
        }
        return vectors
    }

    private func pass(_ batch: [[Int32]]) -> [[Float]] {
        let h = configuration.hiddenSize, b = batch.count
        let length = batch.map(\.count).max()!
        let rows = b * length
        let scratch = Scratch(rows: rows, hidden: h, intermediate: configuration.intermediateSize)
        defer { scratch.deallocate() }
        let x = scratch.x
        // Embeddings: word + position + token type 0 (padding rows stay zero), then LayerNorm.
        x.initialize(repeating: 0, count: rows * h)
        for (item, ids) in batch.enumerated() {
            for (t, id) in ids.enumerated() {
                let row = x + (item * length + t) * h
                let word = embeddings.words.baseAddress! + Int(id) * h, position = embeddings.positions.baseAddress! + t * h
                let type = embeddings.types.baseAddress!
                for k in 0..<h { row[k] = word[k] + position[k] + type[k] }
            }
        }
        layerNorm(x, rows: rows, embeddings.norm)
        let lengths = batch.map { Int32($0.count) }
        for layer in layers { forward(layer, scratch, batch: b, length: length, lengths: lengths) }
        // Mean over the real tokens, then unit length.
        return batch.indices.map { item in
            var sum = [Float](repeating: 0, count: h)
            for t in 0..<batch[item].count {
                let row = x + (item * length + t) * h
                for k in 0..<h { sum[k] += row[k] }
            }
            let count = Float(batch[item].count)
            var norm: Float = 0
            for k in 0..<h { sum[k] /= count; norm += sum[k] * sum[k] }
            let scale = 1 / max(norm.squareRoot(), 1e-12)
            return sum.map { $0 * scale }
        }
    }

    /// The activations of one batch, allocated once per call and reused by every layer.
    struct Scratch {
        let x: UnsafeMutablePointer<Float>            // [rows, hidden]: layer input and output
        let queryKeyValue: UnsafeMutablePointer<Float> // [rows, 3 × hidden]
        let context: UnsafeMutablePointer<Float>      // [rows, hidden]: attention output
        let attended: UnsafeMutablePointer<Float>     // [rows, hidden]: after the attention block
        let hidden: UnsafeMutablePointer<Float>       // [rows, intermediate]
        private let base: UnsafeMutablePointer<Float>

        init(rows: Int, hidden h: Int, intermediate: Int) {
            base = .allocate(capacity: rows * (6 * h + intermediate))
            x = base
            queryKeyValue = x + rows * h
            context = queryKeyValue + rows * 3 * h
            attended = context + rows * h
            hidden = attended + rows * h
        }

        func deallocate() { base.deallocate() }
    }

    private func forward(_ layer: Layer, _ s: Scratch, batch b: Int, length l: Int, lengths: [Int32]) {
        let h = configuration.hiddenSize, heads = configuration.heads, rows = b * l
        layer.queryKeyValue.apply(s.x, rows: rows, into: s.queryKeyValue)
        lengths.withUnsafeBufferPointer { lengths in
            aek_attention(s.queryKeyValue, Int32(b), Int32(l), lengths.baseAddress!, Int32(h), Int32(heads), s.context)
        }
        layer.attentionOutput.apply(s.context, rows: rows, residual: s.x, into: s.attended)
        layerNorm(s.attended, rows: rows, layer.attentionNorm)
        layer.intermediate.apply(s.attended, rows: rows, gelu: true, into: s.hidden)
        layer.output.apply(s.hidden, rows: rows, residual: s.attended, into: s.x)
        layerNorm(s.x, rows: rows, layer.outputNorm)
    }

    private func layerNorm(_ x: UnsafeMutablePointer<Float>, rows: Int, _ norm: Norm) {
        aek_layer_norm(x, Int32(rows), Int32(configuration.hiddenSize), norm.gamma.baseAddress!, norm.beta.baseAddress!,
                       configuration.layerNormEpsilon)
    }
}
