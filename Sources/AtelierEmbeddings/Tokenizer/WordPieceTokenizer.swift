import Foundation

/// BERT's WordPiece tokenizer, as all-MiniLM-L6-v2's reference: normalise
/// (``BertNormalizer``), split on whitespace and around every punctuation character, then split
/// each word greedily into the longest vocabulary pieces, continuations prefixed `##`; a word
/// with no split (or longer than 100 characters) is `[UNK]`. Encoding adds `[CLS]` … `[SEP]`
/// and truncates to `maxLength` ids including them.
package struct WordPieceTokenizer: Sendable {
    package let vocabulary: [String: Int32]
    package let cls: Int32, sep: Int32, unknown: Int32, padding: Int32
    static let maxCharactersPerWord = 100

    /// Reads `vocab.txt`: one token per line, its id the line number from 0.
    package init(vocabularyFile url: URL) throws(EmbeddingError) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw .missingFile("cannot read the vocabulary \(url.path)")
        }
        var vocabulary: [String: Int32] = [:]
        var id: Int32 = 0
        text.enumerateLines { line, _ in
            if vocabulary[line] == nil { vocabulary[line] = id }
            id += 1
        }
        try self.init(vocabulary: vocabulary)
    }

    package init(vocabulary: [String: Int32]) throws(EmbeddingError) {
        guard let cls = vocabulary["[CLS]"], let sep = vocabulary["[SEP]"], let unknown = vocabulary["[UNK]"],
              let padding = vocabulary["[PAD]"] else {
            throw .invalidModel("the vocabulary lacks [CLS], [SEP], [UNK] or [PAD]")
        }
        self.vocabulary = vocabulary
        (self.cls, self.sep, self.unknown, self.padding) = (cls, sep, unknown, padding)
    }

    /// The words after normalisation and splitting (before WordPiece).
    func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty { words.append(String(current)); current = String.UnicodeScalarView() }
        }
        for scalar in BertNormalizer.normalize(text).unicodeScalars {
            if BertNormalizer.isWhitespace(scalar) {
                flush()
            } else if BertNormalizer.isPunctuation(scalar) {
                flush()
                words.append(String(scalar))
            } else {
                current.append(scalar)
            }
        }
        flush()
        return words
    }

    /// WordPiece ids of `text`, without `[CLS]`/`[SEP]`.
    package func tokenize(_ text: String) -> [Int32] {
        var ids: [Int32] = []
        for word in words(text) {
            let characters = Array(word.unicodeScalars)
            if characters.count > Self.maxCharactersPerWord {
                ids.append(unknown)
                continue
            }
            var pieces: [Int32] = []
            var start = 0
            var failed = false
            while start < characters.count {
                var end = characters.count
                var found: Int32?
                while start < end {
                    var piece = String(String.UnicodeScalarView(characters[start..<end]))
                    if start > 0 { piece = "##" + piece }
                    if let id = vocabulary[piece] {
                        found = id
                        break
                    }
                    end -= 1
                }
                guard let id = found else { failed = true; break }
                pieces.append(id)
                start = end
            }
            if failed { ids.append(unknown) } else { ids += pieces }
        }
        return ids
    }

    /// `[CLS]` + the WordPiece ids + `[SEP]`, at most `maxLength` ids in all (the text's ids cut).
    package func encode(_ text: String, maxLength: Int = 256) -> [Int32] {
        let body = tokenize(text)
        return [cls] + body.prefix(max(0, maxLength - 2)) + [sep]
    }
}
