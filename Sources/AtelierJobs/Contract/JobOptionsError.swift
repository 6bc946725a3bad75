/// Options a job kind cannot run with, naming the field that is wrong (`style_id`,
/// `params.eyes`, `warp[1].scale`, `options.ms`). The API answers it as a 400 with that field;
/// a worker that meets it in a stored payload fails the job permanently with its message.
package struct JobOptionsError: Error, Sendable, Equatable, CustomStringConvertible {
    package var field: String
    package var message: String

    package init(field: String, message: String) {
        (self.field, self.message) = (field, message)
    }

    package var description: String { message }

    /// `value` as a whole number of milliseconds in 0…`max`, or the error naming `field`
    /// (the diagnostic kinds' waits: `sleep`'s `ms`, `crash`'s `after_ms`).
    package static func milliseconds(_ value: JSONValue?, field: String, max: Int) throws(JobOptionsError) -> Int {
        guard let ms = value?.integer, (0...max).contains(ms) else {
            throw JobOptionsError(field: field, message: "\(field) must be a whole number of milliseconds in 0…\(max)")
        }
        return ms
    }
}
