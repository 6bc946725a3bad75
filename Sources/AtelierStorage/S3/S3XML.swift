import Foundation

/// The little XML S3 answers with (ListObjectsV2 results and error bodies): flat elements
/// without attributes, read by name. Not a general XML parser, and it needs none: what it does
/// not find it reports as absent.
enum S3XML {
    /// The raw contents of every `<name>…</name>` in `xml`, in order.
    static func elements(_ name: String, in xml: Substring) -> [Substring] {
        let open = "<\(name)>", close = "</\(name)>"
        var found: [Substring] = []
        var rest = xml[...]
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The text of the first `<name>…</name>` in `xml`, entities decoded.
    static func text(_ name: String, in xml: Substring) -> String? {
        guard let open = xml.range(of: "<\(name)>"), let close = xml[open.upperBound...].range(of: "</\(name)>") else { return nil }
        return decode(xml[open.upperBound..<close.lowerBound])
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and numeric references.
    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number: UInt32? = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}

/// One page of a ListObjectsV2 answer.
struct S3ObjectList: Sendable {
    struct Object: Sendable, Equatable {
        var key: String
        var lastModified: Date
        var size: Int
    }

    var objects: [Object]
    /// Present when the listing goes on (`IsTruncated`): pass it back as `continuation-token`.
    var continuation: String?

    /// Nil when the answer is not a ListBucketResult, or an entry lacks its key or date.
    init?(_ body: Data) {
        let xml = Substring(String(decoding: body, as: UTF8.self))
        guard xml.contains("<ListBucketResult") else { return nil }
        var objects: [Object] = []
        for entry in S3XML.elements("Contents", in: xml) {
            guard let key = S3XML.text("Key", in: entry), let modified = S3XML.text("LastModified", in: entry),
                  let date = S3Dates.iso8601(modified) else { return nil }
            objects.append(Object(key: key, lastModified: date, size: S3XML.text("Size", in: entry).flatMap { Int($0) } ?? 0))
        }
        self.objects = objects
        let truncated = S3XML.text("IsTruncated", in: xml) == "true"
        continuation = truncated ? S3XML.text("NextContinuationToken", in: xml) : nil
        if truncated && continuation == nil { return nil }
    }
}

/// S3's `<Error><Code>…</Code><Message>…</Message></Error>`.
struct S3ErrorBody: Sendable {
    var code: String?
    var message: String?

    init(_ body: Data) {
        let xml = Substring(String(decoding: body.prefix(16 * 1024), as: UTF8.self))
        code = S3XML.text("Code", in: xml)
        message = S3XML.text("Message", in: xml).map { String($0.prefix(300)) }
    }
}
