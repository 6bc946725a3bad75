/// The canonical request of AWS Signature Version 4 (step 1), for S3: the method, the URI-encoded
/// path (S3 paths are not normalised, and not encoded twice), the sorted, encoded query, the
/// signed headers (lower-case names, sorted, values with runs of spaces folded), their names,
/// and the payload's hash (`UNSIGNED-PAYLOAD` for pre-signed URLs).
package struct CanonicalRequest: Sendable, Equatable {
    package let method: String
    /// The path as sent, already encoded (``encodePath(_:)``).
    package let path: String
    /// Encoded `name=value` pairs in canonical order, joined by `&`.
    package let query: String
    /// `name;name;…`, the header names the signature covers.
    package let signedHeaders: String
    package let payloadHash: String
    /// The whole canonical request.
    package let text: String

    /// `query` and `headers` are raw (unencoded) pairs; header names are matched case-insensitively.
    package init(method: String, encodedPath: String, query: [(String, String)], headers: [(String, String)], payloadHash: String) {
        self.method = method
        self.path = encodedPath.isEmpty ? "/" : encodedPath
        self.query = Self.canonicalQuery(query)
        var folded: [String: [String]] = [:]
        for (name, value) in headers {
            folded[name.lowercased(), default: []].append(Self.trimAll(value))
        }
        let names = folded.keys.sorted()
        self.signedHeaders = names.joined(separator: ";")
        self.payloadHash = payloadHash
        let headerLines = names.map { "\($0):\(folded[$0]!.joined(separator: ","))\n" }.joined()
        self.text = [method, path, self.query, headerLines, signedHeaders, payloadHash].joined(separator: "\n")
    }

    /// Pairs encoded with ``encode(_:)`` and sorted by name, then value.
    package static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        pairs.map { (encode($0.0), encode($0.1)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// RFC 3986 percent-encoding as SigV4 wants it: every byte but `A–Z a–z 0–9 - _ . ~` is
    /// `%XX` (upper-case hex) of its UTF-8 bytes.
    package static func encode(_ text: String) -> String {
        encode(text, keepingSlash: false)
    }

    /// A path: each segment encoded, the `/` between them kept.
    package static func encodePath(_ path: String) -> String {
        encode(path, keepingSlash: true)
    }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Leading and trailing spaces removed, inner runs of spaces folded to one (SigV4's Trimall).
    static func trimAll(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
