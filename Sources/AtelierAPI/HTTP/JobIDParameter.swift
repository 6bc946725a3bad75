import AtelierQueue
import Foundation
import Hummingbird

extension APIRequestContext {
    /// The `:id` of a job route; a malformed id is a 404, like a job that does not exist.
    package func jobID() throws -> UUID {
        let text = try parameters.require("id")
        guard let id = JobID.uuid(text) else { throw APIError.notFound("no job with id '\(text.prefix(64))'") }
        return id
    }
}

extension APIError {
    /// No such job, or another owner's: the same answer.
    package static func jobNotFound(_ id: UUID) -> APIError {
        .notFound("no job with id \(id.uuidString.lowercased())")
    }
}
