/// `upload`: an image kept for later work without analysis (Mondrian's `auto_analyze=false`);
/// the handler checks it is stored and readable. `source_name` is the client's file name as
/// Mondrian's routes name the image (a non-string is ignored).
public struct UploadJob: JobContract {
    public static let kind = "upload"
    public static let image = ImageRule.required

    public init() {}

    public struct Payload: Codable, Sendable, Equatable {
        public var input: BlobInput
        public var sourceName: String?

        public init(input: BlobInput, sourceName: String? = nil) {
            (self.input, self.sourceName) = (input, sourceName)
        }

        enum CodingKeys: String, CodingKey {
            case input, sourceName = "source_name"
        }
    }

    /// What the stored image is, read back from the store.
    public struct Result: Codable, Sendable, Equatable {
        public var format: String
        public var width: Int
        public var height: Int
        public var bytes: Int

        public init(format: String, width: Int, height: Int, bytes: Int) {
            (self.format, self.width, self.height, self.bytes) = (format, width, height, bytes)
        }
    }

    public func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        let input = try requireImage(input)
        return Payload(input: input, sourceName: options["source_name"]?.string)
    }
}
