import Foundation

/// Text made safe for HTML: every value the console did not write itself (a job's kind, an
/// owner, an error, a payload) goes through ``escape(_:)`` before it reaches a page.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A query string's value, percent-encoded (for links the console builds).
    static func query(_ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        let text = components.percentEncodedQuery ?? ""
        return text.isEmpty ? "" : "?" + text.replacingOccurrences(of: "+", with: "%2B")
    }
}

/// Shorthand for ``HTML/escape(_:)`` in page templates.
func h(_ text: String) -> String { HTML.escape(text) }
func h(_ value: some CustomStringConvertible) -> String { HTML.escape(value.description) }
