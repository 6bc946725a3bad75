/// Text made safe for HTML, in an element or a quoted attribute: `&` `<` `>` `"` `'` become
/// references and NUL becomes U+FFFD. Scalar by scalar, not character by character: a quote
/// followed by a combining mark is one `Character` that is not `"`, yet the browser still ends
/// the attribute at that quote. The one escape of the analysis report (here) and of the
/// operator console (AtelierConsole, which sits above this target).
package enum HTMLText {
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
