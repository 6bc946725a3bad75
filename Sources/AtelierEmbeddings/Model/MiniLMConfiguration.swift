import Foundation

/// The sizes a BERT-family checkpoint declares (`config.json`) and the sequence limit
/// sentence-transformers uses (`sentence_bert_config.json`'s `max_seq_length`, 256 for
/// all-MiniLM-L6-v2 — not tokenizer.json's 128).
package struct MiniLMConfiguration: Sendable, Equatable {
    package var hiddenSize = 384
    package var heads = 12
    package var layers = 6
    package var intermediateSize = 1536
    package var layerNormEpsilon: Float = 1e-12
    package var maxPositions = 512
    package var vocabularySize = 30522
    package var maxSequenceLength = 256

    package init() {}

    package init(modelDirectory directory: URL) throws(EmbeddingError) {
        let configURL = directory.appendingPathComponent("config.json")
        guard let data = try? Data(contentsOf: configURL) else { throw .missingFile("cannot read \(configURL.path)") }
        guard let config = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .invalidModel("\(configURL.path) is not a JSON object")
        }
        func int(_ key: String) throws(EmbeddingError) -> Int {
            guard let value = (config[key] as? NSNumber)?.intValue, value > 0 else {
                throw .invalidModel("\(configURL.lastPathComponent) lacks a positive \(key)")
            }
            return value
        }
        hiddenSize = try int("hidden_size")
        heads = try int("num_attention_heads")
        layers = try int("num_hidden_layers")
        intermediateSize = try int("intermediate_size")
        maxPositions = try int("max_position_embeddings")
        vocabularySize = try int("vocab_size")
        layerNormEpsilon = (config["layer_norm_eps"] as? NSNumber)?.floatValue ?? 1e-12
        guard hiddenSize % heads == 0 else { throw .invalidModel("hidden_size \(hiddenSize) is not a multiple of \(heads) heads") }
        if let act = config["hidden_act"] as? String, act != "gelu" {
            throw .invalidModel("hidden_act \(act) is not supported (exact erf GELU only)")
        }
        let sentenceURL = directory.appendingPathComponent("sentence_bert_config.json")
        if let data = try? Data(contentsOf: sentenceURL),
           let sentence = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let length = (sentence["max_seq_length"] as? NSNumber)?.intValue, length > 2 {
            maxSequenceLength = min(length, maxPositions)
        } else {
            maxSequenceLength = min(256, maxPositions)
        }
    }
}
