import AtelierVision
import Foundation

/// What the console's pages are made of: every value the console did not write itself (a job's
/// kind, an owner, an error, a payload) goes through ``h(_:)`` (`HTMLText.escape`, AtelierVision's,
/// shared with the analysis report) before it reaches a page.
enum HTML {
    /// A query string's value, percent-encoded (for links the console builds).
    static func query(_ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        let text = components.percentEncodedQuery ?? ""
        return text.isEmpty ? "" : "?" + text.replacingOccurrences(of: "+", with: "%2B")
    }
}

/// Shorthand for `HTMLText.escape` in page templates.
func h(_ text: String) -> String { HTMLText.escape(text) }
func h(_ value: some CustomStringConvertible) -> String { HTMLText.escape(value.description) }
