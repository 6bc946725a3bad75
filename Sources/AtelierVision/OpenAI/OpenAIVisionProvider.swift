import AsyncHTTPClient
import AtelierImaging
import Foundation

/// Captions from an OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM,
/// LM Studio, DeepSeek speak it): the photo goes as a `data:` URI in an `image_url` part; the
/// answer's text is the caption and its `usage` is passed on. 429 and 5xx are retried with
/// exponential backoff (honouring `Retry-After`); a timeout, a refused request or an answer
/// without text is ``VisionError/providerFailed(_:)`` (the caption API's AI_001). Analyses also
/// ask it for each advisor's prose, grounded in the measured scores (``critique(_:)``).
package struct OpenAIVisionProvider: VisionProvider {
    /// The endpoint (``ChatCompletionsClient/Configuration``: base URL, key, model, timeout,
    /// retries, backoff — read and set through this value as if they were its own) and the prompt.
    @dynamicMemberLookup
    package struct Configuration: Sendable {
        package var endpoint: ChatCompletionsClient.Configuration
        package var prompt = """
            Describe this photograph in one or two plain sentences for a photo library: what it shows, \
            the light and the mood. No preamble, no lists.
            """

        package init(baseURL: String, apiKey: String?, model: String) {
            endpoint = ChatCompletionsClient.Configuration(baseURL: baseURL, apiKey: apiKey, model: model)
        }

        package subscript<Value>(dynamicMember keyPath: WritableKeyPath<ChatCompletionsClient.Configuration, Value>) -> Value {
            get { endpoint[keyPath: keyPath] }
            set { endpoint[keyPath: keyPath] = newValue }
        }
    }

    package let name = "openai"
    package var model: String { configuration.model }
    let configuration: Configuration
    let client: ChatCompletionsClient

    package init(_ configuration: Configuration, client: HTTPClient = .shared) throws(VisionError) {
        self.configuration = configuration
        self.client = try ChatCompletionsClient(configuration.endpoint, role: "the vision provider", client: client)
    }

    typealias Answer = ChatCompletionsClient.Answer

    package func caption(_ photo: VisionInput) async throws(VisionError) -> Caption {
        let body: Data
        do { body = try requestBody(photo) } catch { throw .providerFailed("the photo could not be prepared for the provider", detail: "\(error)") }
        return try parse(try await client.complete(body))
    }

    /// An advisor's prose from the model: a text-only request with the advisor, the measured
    /// scores and evidence, and the caption (``CritiqueRequest/prompt``); the answer must be the
    /// JSON asked for.
    package func critique(_ request: CritiqueRequest) async throws(VisionError) -> AdvisorProse? {
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: [
                "model": configuration.model, "max_tokens": 700,
                "messages": [["role": "user", "content": request.prompt]],
            ] as [String: Any])
        } catch {
            throw .providerFailed("the critique request could not be written", detail: "\(error)")
        }
        let data = try await client.complete(body)
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), let text = answer.choices?.first?.message?.content,
              let prose = AdvisorProse.parse(text, writtenBy: "\(name)/\(configuration.model)") else {
            throw .providerFailed("the model's critique was not the JSON asked for ({feedback: […], recommendations: […]})")
        }
        return prose
    }

    private func parse(_ data: Data) throws(VisionError) -> Caption {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), let choice = answer.choices?.first,
              let text = choice.message?.content?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw .providerFailed("the vision provider's answer has no caption (expected choices[0].message.content)")
        }
        let confidence = choice.finish_reason == nil || choice.finish_reason == "stop" ? "high" : "medium"
        return Caption(text: String(text.prefix(2000)), provider: name, model: configuration.model, confidence: confidence, usage: answer.usage)
    }

    /// The chat-completions request: the prompt and the photo as a data URI. JPEG, PNG and WebP
    /// go as uploaded; other formats (HEIC) are re-encoded as JPEG from the working pixels.
    func requestBody(_ photo: VisionInput) throws -> Data {
        var bytes = photo.encoded, mime = photo.mimeType
        if !["image/jpeg", "image/jpg", "image/png", "image/webp"].contains(mime) || bytes.isEmpty {
            bytes = try ImageCodec.encodeJPEG(photo.image, quality: 85)
            mime = "image/jpeg"
        }
        let message: [String: Any] = [
            "model": configuration.model,
            "max_tokens": 300,
            "messages": [
                ["role": "user", "content": [
                    ["type": "text", "text": configuration.prompt],
                    ["type": "image_url", "image_url": ["url": "data:\(mime);base64,\(Data(bytes).base64EncodedString())"]],
                ]],
            ],
        ]
        return try JSONSerialization.data(withJSONObject: message)
    }
}
