import AtelierHashing
import Foundation

/// Strong ETags from a 64-bit FNV-1a hash of the body.
package enum ETag {
    package static func of(_ data: Data) -> String {
        let hash = data.withUnsafeBytes { FNV1a.hash($0) }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// `If-None-Match` may list several tags, or `*`; weak comparison as RFC 9110 §13.1.2 says.
    package static func matches(_ header: String, _ etag: String) -> Bool {
        if header == etag { return true }   // what a poller sends back, as it was given
        if HeaderText.trimmed(header) == "*" { return true }
        return header.split(separator: ",").contains { candidate in
            var tag = HeaderText.trimmed(candidate)
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == etag
        }
    }
}
