/// `caption` (docs/clients.md §1): an image described by the configured vision provider, for
/// the caption app's `/api/generateCaption`. Options are not read.
package struct CaptionJob: JobContract {
    package static let kind = "caption"
    package static let image = ImageRule.required

    package init() {}

    package struct Payload: Codable, Sendable, Equatable {
        package var input: BlobInput

        package init(input: BlobInput) { self.input = input }
    }

    /// The caption and who wrote it, with the size of the pixels the provider measured.
    package struct Result: Codable, Sendable, Equatable {
        package var caption: String
        package var provider: String
        package var model: String
        /// `high`, `medium` or `low`: how strong the cues behind the caption are.
        package var confidence: String
        package var usage: Usage?
        package var width: Int
        package var height: Int
        /// The photo's ThumbHash placeholder (about 25 bytes, base64), for the job view's
        /// `thumbnail_url`: a client paints it before the image arrives.
        package var thumbhash: String?

        package init(caption: String, provider: String, model: String, confidence: String, usage: Usage?, width: Int, height: Int,
                     thumbhash: String? = nil) {
            (self.caption, self.provider, self.model, self.confidence, self.usage) = (caption, provider, model, confidence, usage)
            (self.width, self.height, self.thumbhash) = (width, height, thumbhash)
        }
    }

    /// Token counts as an OpenAI-compatible API reports them (the caption app shows them as is).
    package struct Usage: Codable, Sendable, Equatable {
        package var promptTokens: Int
        package var completionTokens: Int
        package var totalTokens: Int

        package init(promptTokens: Int, completionTokens: Int, totalTokens: Int) {
            (self.promptTokens, self.completionTokens, self.totalTokens) = (promptTokens, completionTokens, totalTokens)
        }

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens"
        }
    }

    package func payload(options: JSONObject, input: BlobInput?) throws(JobOptionsError) -> Payload {
        Payload(input: try requireImage(input))
    }
}
