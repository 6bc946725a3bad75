import AtelierJobs
import Foundation
import Hummingbird
import NIOCore

/// A request body that must be one JSON object, read strictly: anything else is refused, and
/// so is a field the route does not take (``unknownField(in:allowed:)``, named in the 400).
package enum JSONBody {
    /// The body (at most `limit` bytes) as a JSON object; `refusal` when it is not one.
    package static func object(_ request: Request, limit: Int, refusal: @autoclosure () -> APIError) async throws -> JSONObject {
        let buffer = try await request.body.collect(upTo: limit)
        guard let object = object(buffer) else { throw refusal() }
        return object
    }

    /// A collected body as a JSON object; nil when it is not one.
    package static func object(_ buffer: ByteBuffer) -> JSONObject? {
        JSONValue.parseObject(buffer.readableBytesView)
    }

    /// The first field, in sorted order, that is not one of `allowed`; nil when there is none.
    package static func unknownField(in object: JSONObject, allowed: some Sequence<String>) -> String? {
        let allowed = Set(allowed)
        return object.keys.sorted().first { !allowed.contains($0) }
    }
}
