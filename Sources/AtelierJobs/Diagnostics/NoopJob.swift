/// `noop` (diagnostic): does nothing and succeeds with no result. Options are not read; an
/// image, if sent, is stored and named like any other.
package struct NoopJob: JobContract {
    package static let kind = "noop"
    package static let image = ImageRule.optional

    package init() {}

    package struct Payload: Codable, Sendable, Equatable {
        package var input: BlobInput?

        package init(input: BlobInput? = nil) { self.input = input }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        Payload(input: input)
    }
}
