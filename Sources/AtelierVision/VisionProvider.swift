import AtelierImaging

/// Something that can describe a photo: `local` (composed from measurements, no network) or
/// `openai` (an OpenAI-compatible chat-completions endpoint). Chosen by configuration.
package protocol VisionProvider: Sendable {
    /// What the caption's `provider` field says ("atelier-local", "openai", …).
    var name: String { get }
    /// The model behind it, with a version.
    var model: String { get }
    func caption(_ photo: VisionInput) async throws(VisionError) -> Caption
    /// An advisor's feedback and recommendations written by the provider's model, grounded in
    /// the measured scores; nil when the provider writes none (the `local` provider: the
    /// advisors' own templates are used).
    func critique(_ request: CritiqueRequest) async throws(VisionError) -> AdvisorProse?
}

extension VisionProvider {
    package func critique(_ request: CritiqueRequest) async throws(VisionError) -> AdvisorProse? { nil }
}

/// A photo as providers receive it: the upright pixels (already reduced to a working size)
/// for measuring, and encoded bytes for providers that send the image elsewhere.
package struct VisionInput: Sendable {
    package var image: PixelBuffer
    package var encoded: [UInt8]
    package var mimeType: String

    package init(image: PixelBuffer, encoded: [UInt8], mimeType: String) {
        (self.image, self.encoded, self.mimeType) = (image, encoded, mimeType)
    }
}

package struct Caption: Sendable, Codable, Equatable {
    package var text: String
    package var provider: String
    package var model: String
    /// "high" | "medium" | "low": how strong the cues behind the caption are.
    package var confidence: String
    package var usage: TokenUsage?

    package init(text: String, provider: String, model: String, confidence: String, usage: TokenUsage? = nil) {
        (self.text, self.provider, self.model, self.confidence, self.usage) = (text, provider, model, confidence, usage)
    }
}

/// Token counts as an OpenAI-compatible API reports them.
package struct TokenUsage: Sendable, Codable, Equatable {
    package var prompt_tokens: Int
    package var completion_tokens: Int
    package var total_tokens: Int

    package init(prompt_tokens: Int, completion_tokens: Int, total_tokens: Int) {
        (self.prompt_tokens, self.completion_tokens, self.total_tokens) = (prompt_tokens, completion_tokens, total_tokens)
    }
}

/// Why a provider could not describe a photo. The message (``description``) is safe to show a
/// client; `detail` — the provider's own error text, a library's error — is for the log only.
package enum VisionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider failed, answered nonsense or timed out (the caption API's AI_001).
    case providerFailed(String, detail: String? = nil)
    /// The provider is misconfigured (missing key or URL): a start-up error.
    case configuration(String)

    package var description: String {
        switch self {
        case .providerFailed(let message, _), .configuration(let message): return message
        }
    }

    /// What the provider or library said, for the log.
    package var detail: String? {
        if case .providerFailed(_, let detail) = self { return detail }
        return nil
    }
}
