import COpenBLAS
import Foundation

/// all-MiniLM-L6-v2 (or any BERT-family sentence-transformers checkpoint of the same layout) in
/// Swift: WordPiece ids → embeddings (word + position + type 0, LayerNorm) → N encoder layers
/// (self-attention with the padding mask, exact erf GELU, post-LayerNorm) → mean pooling over
/// the real tokens → L2 normalisation. Matrix products run on OpenBLAS (`cblas_sgemm`);
/// a batch is padded to its longest text. Immutable after loading: share one instance.
public final class MiniLMEncoder: Sendable {
    public let configuration: MiniLMConfiguration
    public let tokenizer: WordPieceTokenizer
    private let file: SafeTensors
    private let embeddings: Embeddings
    private let layers: [Layer]

    public var dimension: Int { configuration.hiddenSize }

    struct Linear: @unchecked Sendable {
        let weight: UnsafeBufferPointer<Float>   // [out, in], row-major (PyTorch's layout)
        let bias: UnsafeBufferPointer<Float>
        let inputs: Int, outputs: Int
    }

    struct Norm: @unchecked Sendable {
        let gamma: UnsafeBufferPointer<Float>, beta: UnsafeBufferPointer<Float>
    }

    struct Embeddings: @unchecked Sendable {
        let words: UnsafeBufferPointer<Float>, positions: UnsafeBufferPointer<Float>, types: UnsafeBufferPointer<Float>
        let norm: Norm
    }

    struct Layer: Sendable {
        let query: Linear, key: Linear, value: Linear, attentionOutput: Linear
        let attentionNorm: Norm
        let intermediate: Linear, output: Linear
        let outputNorm: Norm
    }

    /// Loads `model.safetensors`, `vocab.txt`, `config.json` and `sentence_bert_config.json`
    /// from `directory` (ATELIER_MODEL_DIR).
    /// Caps the threads OpenBLAS uses for the matrix products (its own pool, process-wide).
    public static func limitThreads(to count: Int) {
        openblas_set_num_threads(Int32(max(1, count)))
    }

    public init(modelDirectory directory: URL) throws(EmbeddingError) {
        for name in ["model.safetensors", "vocab.txt", "config.json"]
        where !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            throw .missingFile("the embedding model is not at \(directory.path): \(name) is missing (set ATELIER_MODEL_DIR to the folder holding model.safetensors, vocab.txt and config.json; ./ops/run installs it)")
        }
        let configuration = try MiniLMConfiguration(modelDirectory: directory)
        let file = try SafeTensors(contentsOf: directory.appendingPathComponent("model.safetensors"))
        let h = configuration.hiddenSize, i = configuration.intermediateSize
        func linear(_ name: String, _ inputs: Int, _ outputs: Int) throws(EmbeddingError) -> Linear {
            Linear(weight: try file.tensor(name + ".weight", shape: [outputs, inputs]).values,
                   bias: try file.tensor(name + ".bias", shape: [outputs]).values, inputs: inputs, outputs: outputs)
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
                query: try linear(p + "attention.self.query", h, h), key: try linear(p + "attention.self.key", h, h),
                value: try linear(p + "attention.self.value", h, h),
                attentionOutput: try linear(p + "attention.output.dense", h, h),
                attentionNorm: try norm(p + "attention.output.LayerNorm"),
                intermediate: try linear(p + "intermediate.dense", h, i), output: try linear(p + "output.dense", i, h),
                outputNorm: try norm(p + "output.LayerNorm")))
        }
        self.layers = layers
        self.file = file
        self.configuration = configuration
        self.tokenizer = try WordPieceTokenizer(vocabularyFile: directory.appendingPathComponent("vocab.txt"))
    }

    /// Token ids as the model sees them: `[CLS]` … `[SEP]`, at most `maxSequenceLength`.
    public func tokenIDs(_ text: String) -> [Int32] {
        tokenizer.encode(text, maxLength: configuration.maxSequenceLength)
    }

    /// Unit-length embeddings of `texts`, in order. Texts are grouped by length into batches of
    /// up to `batchSize`, so padding to a batch's longest text costs little.
    public func embed(_ texts: [String], batchSize: Int = 32) -> [[Float]] {
        let ids = texts.map(tokenIDs)
        let order = ids.indices.sorted { ids[$0].count < ids[$1].count }
        var vectors = [[Float]](repeating: [], count: ids.count)
        for start in stride(from: 0, to: order.count, by: max(1, batchSize)) {
            let chunk = Array(order[start..<min(order.count, start + max(1, batchSize))])
            for (index, vector) in zip(chunk, embed(ids: chunk.map { ids[$0] })) { vectors[index] = vector }
        }
        return vectors
    }

    public func embed(_ text: String) -> [Float] { embed([text])[0] }

    /// Embeddings of already tokenised texts (each with `[CLS]`/`[SEP]`).
    public func embed(ids batch: [[Int32]]) -> [[Float]] {
        guard !batch.isEmpty else { return [] }
        let h = configuration.hiddenSize, b = batch.count
        let length = batch.map(\.count).max()!
        let rows = b * length
        var x = [Float](repeating: 0, count: rows * h)
        // Embeddings: word + position + token type 0, then LayerNorm.
        x.withUnsafeMutableBufferPointer { out in
            for (item, ids) in batch.enumerated() {
                for (t, id) in ids.enumerated() {
                    let row = out.baseAddress! + (item * length + t) * h
                    let word = embeddings.words.baseAddress! + Int(id) * h, position = embeddings.positions.baseAddress! + t * h
                    let type = embeddings.types.baseAddress!
                    for k in 0..<h { row[k] = word[k] + position[k] + type[k] }
                }
            }
        }
        Self.layerNorm(&x, rows: rows, width: h, embeddings.norm, epsilon: configuration.layerNormEpsilon)
        let lengths = batch.map(\.count)
        for layer in layers { x = forward(layer, x, batch: b, length: length, lengths: lengths) }
        // Mean over the real tokens, then unit length.
        return batch.indices.map { item in
            var sum = [Float](repeating: 0, count: h)
            for t in 0..<lengths[item] {
                let base = (item * length + t) * h
                for k in 0..<h { sum[k] += x[base + k] }
            }
            let count = Float(lengths[item])
            var norm: Float = 0
            for k in 0..<h { sum[k] /= count; norm += sum[k] * sum[k] }
            let scale = 1 / max(norm.squareRoot(), 1e-12)
            return sum.map { $0 * scale }
        }
    }

    private func forward(_ layer: Layer, _ x: [Float], batch b: Int, length l: Int, lengths: [Int]) -> [Float] {
        let h = configuration.hiddenSize, heads = configuration.heads, d = h / heads, rows = b * l
        let q = Self.apply(layer.query, x, rows: rows), k = Self.apply(layer.key, x, rows: rows), v = Self.apply(layer.value, x, rows: rows)
        var context = [Float](repeating: 0, count: rows * h)
        let scale = 1 / Float(d).squareRoot()
        q.withUnsafeBufferPointer { qb in k.withUnsafeBufferPointer { kb in v.withUnsafeBufferPointer { vb in
        context.withUnsafeMutableBufferPointer { cb in
            // One row of attention weights, reused by every head and query row.
            var weights = [Float](repeating: 0, count: l)
            weights.withUnsafeMutableBufferPointer { wb in
                for item in 0..<b {
                    for head in 0..<heads {
                        let offset = item * l * h + head * d
                        Self.attend(q: qb.baseAddress! + offset, k: kb.baseAddress! + offset, v: vb.baseAddress! + offset,
                                    out: cb.baseAddress! + offset, weights: wb.baseAddress!, stride: h, headSize: d, length: l,
                                    valid: lengths[item], scale: scale)
                    }
                }
            }
        } } } }
        var attended = Self.apply(layer.attentionOutput, context, rows: rows)
        for index in attended.indices { attended[index] += x[index] }
        Self.layerNorm(&attended, rows: rows, width: h, layer.attentionNorm, epsilon: configuration.layerNormEpsilon)
        var hidden = Self.apply(layer.intermediate, attended, rows: rows)
        for index in hidden.indices {
            let value = hidden[index]
            hidden[index] = 0.5 * value * (1 + erff(value * 0.70710678118654752))
        }
        var output = Self.apply(layer.output, hidden, rows: rows)
        for index in output.indices { output[index] += attended[index] }
        Self.layerNorm(&output, rows: rows, width: h, layer.outputNorm, epsilon: configuration.layerNormEpsilon)
        return output
    }

    /// One head of one text: softmax(Q Kᵀ · scale, over the `valid` real keys) V, for every
    /// query row. Rows are `stride` floats apart; the head's `headSize` columns are contiguous.
    /// These products are tiny (length × 32): plain SIMD loops beat a BLAS call's set-up.
    static func attend(q: UnsafePointer<Float>, k: UnsafePointer<Float>, v: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>,
                       weights w: UnsafeMutablePointer<Float>, stride: Int, headSize d: Int, length l: Int, valid: Int, scale: Float) {
        for row in 0..<l {
            let query = q + row * stride
            var peak = -Float.infinity
            for key in 0..<valid {
                let score = dot(query, k + key * stride, count: d) * scale
                w[key] = score
                peak = max(peak, score)
            }
            var total: Float = 0
            for key in 0..<valid { w[key] = expf(w[key] - peak); total += w[key] }
            let inverse = 1 / total
            let target = out + row * stride
            for j in 0..<d { target[j] = 0 }
            for key in 0..<valid {
                let weight = w[key] * inverse, value = v + key * stride
                for j in 0..<d { target[j] += weight * value[j] }
            }
        }
    }

    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sum = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            sum += UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self) * UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
            i += 8
        }
        var total = sum.sum()
        while i < count { total += a[i] * b[i]; i += 1 }
        return total
    }

    /// `input` [rows, in] · Wᵀ + b → [rows, out].
    static func apply(_ linear: Linear, _ input: [Float], rows: Int) -> [Float] {
        var output = [Float](repeating: 0, count: rows * linear.outputs)
        output.withUnsafeMutableBufferPointer { out in
            for row in 0..<rows {
                (out.baseAddress! + row * linear.outputs).update(from: linear.bias.baseAddress!, count: linear.outputs)
            }
            input.withUnsafeBufferPointer { inp in
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(linear.outputs), Int32(linear.inputs), 1,
                            inp.baseAddress!, Int32(linear.inputs), linear.weight.baseAddress!, Int32(linear.inputs),
                            1, out.baseAddress!, Int32(linear.outputs))
            }
        }
        return output
    }

    static func layerNorm(_ x: inout [Float], rows: Int, width: Int, _ norm: Norm, epsilon: Float) {
        x.withUnsafeMutableBufferPointer { buffer in
            for row in 0..<rows {
                let r = buffer.baseAddress! + row * width
                var mean: Float = 0
                for k in 0..<width { mean += r[k] }
                mean /= Float(width)
                var variance: Float = 0
                for k in 0..<width { let c = r[k] - mean; variance += c * c }
                let inverse = 1 / (variance / Float(width) + epsilon).squareRoot()
                for k in 0..<width { r[k] = (r[k] - mean) * inverse * norm.gamma[k] + norm.beta[k] }
            }
        }
    }
}
