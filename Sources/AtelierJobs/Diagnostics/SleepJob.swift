/// `sleep` (diagnostic): `{"ms": 250}` waits that long, checking for cancellation, and answers
/// `{"slept_ms": 250}`. It holds a worker slot for up to an hour.
package struct SleepJob: JobContract {
    package static let kind = "sleep"
    package static let image = ImageRule.optional

    package init() {}

    package static let maxMilliseconds = 3_600_000

    package struct Payload: Codable, Sendable, Equatable {
        package var ms: Int
        package var input: BlobInput?

        package init(ms: Int, input: BlobInput? = nil) {
            (self.ms, self.input) = (ms, input)
        }

        /// The wait, checked as the API checked it.
        package func duration() throws(JobOptionsError) -> Int {
            try SleepJob.milliseconds(.integer(Int64(ms)))
        }
    }

    package struct Result: Codable, Sendable, Equatable {
        package var sleptMs: Int

        package init(sleptMs: Int) { self.sleptMs = sleptMs }

        enum CodingKeys: String, CodingKey { case sleptMs = "slept_ms" }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        Payload(ms: try Self.milliseconds(options["ms"]), input: input)
    }

    static func milliseconds(_ value: JSONValue?) throws(JobOptionsError) -> Int {
        try JobOptionsError.milliseconds(value, field: "options.ms", max: maxMilliseconds)
    }
}
