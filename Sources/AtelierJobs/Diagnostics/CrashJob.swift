/// `crash` (diagnostic): `{"after_ms": 200}` waits that long, then its worker process kills
/// itself with SIGKILL — what a job that runs its worker out of memory looks like from outside.
/// A poison pill made to order, for the crash tests and `./ops/chaos`; it never succeeds, and
/// the rescuer fails it once it has crashed its worker `ATELIER_CRASH_LIMIT` times running alone.
package struct CrashJob: JobContract {
    package static let kind = "crash"
    package static let image = ImageRule.optional

    package init() {}

    package static let maxMilliseconds = 60_000

    package struct Payload: Codable, Sendable, Equatable {
        package var afterMs: Int
        package var input: BlobInput?

        package init(afterMs: Int = 0, input: BlobInput? = nil) {
            (self.afterMs, self.input) = (afterMs, input)
        }

        /// The wait, checked as the API checked it.
        package func delay() throws(JobOptionsError) -> Int {
            try CrashJob.milliseconds(.integer(Int64(afterMs)))
        }

        enum CodingKeys: String, CodingKey {
            case input, afterMs = "after_ms"
        }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        guard let value = options["after_ms"], !value.isNull else { return Payload(input: input) }
        return Payload(afterMs: try Self.milliseconds(value), input: input)
    }

    static func milliseconds(_ value: JSONValue?) throws(JobOptionsError) -> Int {
        try JobOptionsError.milliseconds(value, field: "options.after_ms", max: maxMilliseconds)
    }
}
