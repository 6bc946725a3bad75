import Foundation
import Hummingbird

/// A submitted HTML form (`application/x-www-form-urlencoded`), at most 16 KB. Anything else —
/// another type, a larger body, bytes that are not UTF-8 — is a 400.
struct FormBody: Sendable {
    private(set) var fields: [String: String] = [:]

    static let limit = 16 * 1024

    subscript(_ name: String) -> String? { fields[name] }

    init(fields: [String: String]) { self.fields = fields }

    /// The request's form; the body stays collected on `request` for whoever reads it next.
    static func read(_ request: inout Request) async throws -> FormBody {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw ConsoleError.badRequest("Send the form as the page does (application/x-www-form-urlencoded).")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw ConsoleError.badRequest("The form is larger than \(limit / 1024) KB.")
        }
        guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes),
              let form = parse(text) else { throw ConsoleError.badRequest("The form could not be read.") }
        return form
    }

    /// `a=1&b=x+y%21` → ["a": "1", "b": "x y!"]; nil when an escape is broken. A repeated name keeps its first value.
    static func parse(_ text: String) -> FormBody? {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { return nil }
            guard let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
        return FormBody(fields: fields)
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
