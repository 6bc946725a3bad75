import AtelierStorage
import Foundation
import Hummingbird
import NIOCore

/// A stored blob as an HTTP answer, once the caller's right to it is settled (a signed result
/// URL, a signed Mondrian file name): Content-Type, Content-Length, a strong ETag (304 on
/// If-None-Match), Last-Modified, the given Cache-Control, single byte ranges (206 / 416), HEAD.
package enum BlobResponse {
    package static func serve(_ key: BlobKey, for request: Request, from blobs: any BlobStore,
                      cacheControl: String, missing: String) async throws -> Response {
        guard let info = try await blobs.info(key) else {
            throw APIError.notFound(missing)
        }
        return try await serve(info, for: request, cacheControl: cacheControl) { range in
            ByteBuffer(bytes: try await blobs.read(key, range: range))
        }
    }

    /// The same answer for a blob already described by `info`, whose bytes (or the range
    /// asked for) `body` supplies — from the store, or from memory (``VariantMemoryCache``).
    package static func serve(_ info: BlobInfo, for request: Request, cacheControl: String,
                              body: (Range<Int>?) async throws -> ByteBuffer) async throws -> Response {
        var headers: HTTPFields = [
            .contentType: info.contentType,
            .eTag: info.etag,
            .acceptRanges: "bytes",
            .lastModified: HTTPDate.format(info.modifiedAt),
            .cacheControl: cacheControl,
        ]
        if let match = request.headers[.ifNoneMatch], ETag.matches(match, info.etag) {
            return Response(status: .notModified, headers: headers)
        }
        var status = HTTPResponse.Status.ok
        var range: Range<Int>?
        if let header = request.headers[.range], info.size > 0 {
            switch ByteRange.parse(header, size: info.size) {
            case .whole: break
            case .unsatisfiable: throw APIError.rangeNotSatisfiable(size: info.size)
            case .range(let r):
                range = r
                status = .partialContent
                headers[.contentRange] = "bytes \(r.lowerBound)-\(r.upperBound - 1)/\(info.size)"
            }
        }
        let length = range?.count ?? info.size
        headers[.contentLength] = String(length)
        if request.method == .head {
            return Response(status: status, headers: headers)
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: try await body(range)))
    }
}
