import AtelierImaging

/// Something that can describe a photo: `local` (composed from measurements, no network) or
/// `openai` (an OpenAI-compatible chat-completions endpoint). Chosen by configuration.
public protocol VisionProvider: Sendable {
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
    public func critique(_ request: CritiqueRequest) async throws(VisionError) -> AdvisorProse? { nil }
}

/// A photo as providers receive it: the upright pixels (already reduced to a working size)
/// for measuring, and encoded bytes for providers that send the image elsewhere.
public struct VisionInput: Sendable {
    public var image: PixelBuffer
    public var encoded: [UInt8]
    public var mimeType: String

    public init(image: PixelBuffer, encoded: [UInt8], mimeType: String) {
        (self.image, self.encoded, self.mimeType) = (image, encoded, mimeType)
    }
}

public struct Caption: Sendable, Codable, Equatable {
    public var text: String
    public var provider: String
    public var model: String
    /// "high" | "medium" | "low": how strong the cues behind the caption are.
    public var confidence: String
    public var usage: TokenUsage?

    public init(text: String, provider: String, model: String, confidence: String, usage: TokenUsage? = nil) {
        (self.text, self.provider, self.model, self.confidence, self.usage) = (text, provider, model, confidence, usage)
    }
}

/// Token counts as an OpenAI-compatible API reports them.
public struct TokenUsage: Sendable, Codable, Equatable {
    public var prompt_tokens: Int
    public var completion_tokens: Int
    public var total_tokens: Int

    public init(prompt_tokens: Int, completion_tokens: Int, total_tokens: Int) {
        (self.prompt_tokens, self.completion_tokens, self.total_tokens) = (prompt_tokens, completion_tokens, total_tokens)
    }
}

/// Why a provider could not describe a photo. The message (``description``) is safe to show a
/// client; `detail` — the provider's own error text, a library's error — is for the log only.
public enum VisionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider failed, answered nonsense or timed out (the caption API's AI_001).
    case providerFailed(String, detail: String? = nil)
    /// The provider is misconfigured (missing key or URL): a start-up error.
    case configuration(String)

    public var description: String {
        switch self {
        case .providerFailed(let message, _), .configuration(let message): return message
        }
    }

    /// What the provider or library said, for the log.
    public var detail: String? {
        if case .providerFailed(_, let detail) = self { return detail }
        return nil
    }
}
