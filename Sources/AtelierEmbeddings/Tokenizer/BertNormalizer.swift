import Foundation

/// BERT's text clean-up before splitting, as the reference tokenizer (Hugging Face `tokenizers`'
/// BertNormalizer with `lowercase`, `strip_accents` following it, `handle_chinese_chars`,
/// `clean_text`) does it, in the same order:
/// 1. drop U+0000, U+FFFD and control/format characters (Unicode category C*, except tab,
///    newline and carriage return, which are whitespace); every whitespace character → a space;
/// 2. a space on each side of every CJK ideograph, so each becomes its own word;
/// 3. strip accents: NFD, then drop non-spacing marks (Mn);
/// 4. lower-case.
enum BertNormalizer {
    static func normalize(_ text: String) -> String {
        var cleaned = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value == 0 || scalar.value == 0xFFFD { continue }
            if isWhitespace(scalar) {
                cleaned.append(" ")
                continue
            }
            if isControl(scalar) { continue }
            if isCJK(scalar) {
                cleaned.append(" ")
                cleaned.append(scalar)
                cleaned.append(" ")
            } else {
                cleaned.append(scalar)
            }
        }
        var stripped = String.UnicodeScalarView()
        for scalar in String(cleaned).decomposedStringWithCanonicalMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            stripped.append(scalar)
        }
        return String(stripped).lowercased()
    }

    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case " ", "\t", "\n", "\r": return true
        default: return scalar.properties.generalCategory == .spaceSeparator
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

    /// ASCII punctuation and symbols (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~), and every Unicode P*.
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if (33...47).contains(v) || (58...64).contains(v) || (91...96).contains(v) || (123...126).contains(v) { return true }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK Unified Ideographs blocks BERT treats as one character per word.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F,
             0x2B740...0x2B81F, 0x2B820...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
