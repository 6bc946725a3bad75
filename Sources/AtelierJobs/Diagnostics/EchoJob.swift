/// `echo` (diagnostic): the job's input image, unchanged, is its result — the whole blob path
/// (upload, input blob, worker, result blob, pre-signed URL) without any image processing.
public struct EchoJob: JobContract {
    public static let kind = "echo"
    public static let image = ImageRule.required

    public init() {}

    public struct Payload: Codable, Sendable, Equatable {
        public var input: BlobInput

        public init(input: BlobInput) { self.input = input }
    }

    public struct Result: Codable, Sendable, Equatable {
        public var resultBlob: String
        public var bytes: Int
        public var contentType: String

        public init(resultBlob: String, bytes: Int, contentType: String) {
            (self.resultBlob, self.bytes, self.contentType) = (resultBlob, bytes, contentType)
        }

        enum CodingKeys: String, CodingKey {
            case bytes, resultBlob = "result_blob", contentType = "content_type"
        }
    }

    public func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        Payload(input: try requireImage(input))
    }
}
