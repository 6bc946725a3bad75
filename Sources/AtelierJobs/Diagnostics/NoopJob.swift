/// `noop` (diagnostic): does nothing and succeeds with no result. Options are not read; an
/// image, if sent, is stored and named like any other.
public struct NoopJob: JobContract {
    public static let kind = "noop"
    public static let image = ImageRule.optional

    public init() {}

    public struct Payload: Codable, Sendable, Equatable {
        public var input: BlobInput?

        public init(input: BlobInput? = nil) { self.input = input }
    }

    public func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        Payload(input: input)
    }
}
