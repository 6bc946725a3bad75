import Foundation
import Hummingbird
import NIOCore

/// A JSON answer: `application/json; charset=utf-8` with its length, the body written by
/// ``APIJSON``.
package enum JSONResponse {
    package static func encode(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        data(try APIJSON.encode(value), status: status)
    }

    /// JSON already rendered (a cached job view).
    package static func data(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status,
                 headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
                 body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
