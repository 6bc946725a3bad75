/// `caption` (docs/clients.md §1): an image described by the configured vision provider, for
/// the caption app's `/api/generateCaption`. Options are not read.
public struct CaptionJob: JobContract {
    public static let kind = "caption"
    public static let image = ImageRule.required

    public init() {}

    public struct Payload: Codable, Sendable, Equatable {
        public var input: BlobInput

        public init(input: BlobInput) { self.input = input }
    }

    /// The caption and who wrote it, with the size of the pixels the provider measured.
    public struct Result: Codable, Sendable, Equatable {
        public var caption: String
        public var provider: String
        public var model: String
        /// `high`, `medium` or `low`: how strong the cues behind the caption are.
        public var confidence: String
        public var usage: Usage?
        public var width: Int
        public var height: Int

        public init(caption: String, provider: String, model: String, confidence: String, usage: Usage?, width: Int, height: Int) {
            (self.caption, self.provider, self.model, self.confidence, self.usage) = (caption, provider, model, confidence, usage)
            (self.width, self.height) = (width, height)
        }
    }

    /// Token counts as an OpenAI-compatible API reports them (the caption app shows them as is).
    public struct Usage: Codable, Sendable, Equatable {
        public var promptTokens: Int
        public var completionTokens: Int
        public var totalTokens: Int

        public init(promptTokens: Int, completionTokens: Int, totalTokens: Int) {
            (self.promptTokens, self.completionTokens, self.totalTokens) = (promptTokens, completionTokens, totalTokens)
        }

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens"
        }
    }

    public func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        guard let input else { throw JobOptionsError(field: "image", message: "a caption job needs an image") }
        return Payload(input: input)
    }
}
