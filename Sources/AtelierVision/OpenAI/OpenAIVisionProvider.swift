import AsyncHTTPClient
import AtelierImaging
import Foundation
import NIOCore
import NIOHTTP1

/// Captions from an OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM,
/// LM Studio, DeepSeek speak it): the photo goes as a `data:` URI in an `image_url` part; the
/// answer's text is the caption and its `usage` is passed on. 429 and 5xx are retried with
/// exponential backoff (honouring `Retry-After`); a timeout, a refused request or an answer
/// without text is ``VisionError/providerFailed(_:)`` (the caption API's AI_001). Analyses also
/// ask it for each advisor's prose, grounded in the measured scores (``critique(_:)``).
public struct OpenAIVisionProvider: VisionProvider {
    public struct Configuration: Sendable {
        /// Up to and including the API version, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
        public var baseURL: String
        public var apiKey: String?
        public var model: String
        /// Per attempt.
        public var timeout: Duration = .seconds(30)
        /// Attempts after the first, on 429 / 5xx / connection errors.
        public var maxRetries = 3
        /// First backoff; doubles per retry, capped at 8 s (a `Retry-After` header wins, capped at 30 s).
        public var backoff: Duration = .milliseconds(500)
        public var prompt = """
            Describe this photograph in one or two plain sentences for a photo library: what it shows, \
            the light and the mood. No preamble, no lists.
            """

        public init(baseURL: String, apiKey: String?, model: String) {
            (self.baseURL, self.apiKey, self.model) = (baseURL, apiKey, model)
        }
    }

    public let name = "openai"
    public var model: String { configuration.model }
    let configuration: Configuration
    let client: HTTPClient

    public init(_ configuration: Configuration, client: HTTPClient = .shared) throws(VisionError) {
        guard let url = URL(string: configuration.baseURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw .configuration("ATELIER_OPENAI_BASE_URL must be an http(s) URL like https://api.openai.com/v1, got '\(configuration.baseURL)'")
        }
        guard !configuration.model.isEmpty else { throw .configuration("ATELIER_OPENAI_MODEL is empty") }
        (self.configuration, self.client) = (configuration, client)
    }

    struct Answer: Decodable {
        struct Choice: Decodable {
            struct Message: Decodable { var content: String? }
            var message: Message?
            var finish_reason: String?
        }
        var choices: [Choice]?
        var usage: TokenUsage?
    }

    public func caption(_ photo: VisionInput) async throws(VisionError) -> Caption {
        let body: Data
        do { body = try requestBody(photo) } catch { throw .providerFailed("the photo could not be prepared for the provider", detail: "\(error)") }
        return try parse(try await complete(body))
    }

    /// An advisor's prose from the model: a text-only request with the advisor, the measured
    /// scores and evidence, and the caption (``CritiqueRequest/prompt``); the answer must be the
    /// JSON asked for.
    public func critique(_ request: CritiqueRequest) async throws(VisionError) -> AdvisorProse? {
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: [
                "model": configuration.model, "max_tokens": 700,
                "messages": [["role": "user", "content": request.prompt]],
            ] as [String: Any])
        } catch {
            throw .providerFailed("the critique request could not be written", detail: "\(error)")
        }
        let data = try await complete(body)
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), let text = answer.choices?.first?.message?.content,
              let prose = AdvisorProse.parse(text, writtenBy: "\(name)/\(configuration.model)") else {
            throw .providerFailed("the model's critique was not the JSON asked for ({feedback: […], recommendations: […]})")
        }
        return prose
    }

    /// One chat completion: sent, and retried with backoff on 429 / 5xx / connection errors.
    private func complete(_ body: Data) async throws(VisionError) -> Data {
        var attempt = 0
        while true {
            switch await send(body) {
            case .answer(let data):
                return data
            case .retry(_, _, let after) where attempt < configuration.maxRetries:
                attempt += 1
                let exponential = configuration.backoff * (1 << min(attempt - 1, 4))
                try? await Task.sleep(for: after.map { min($0, .seconds(30)) } ?? min(exponential, .seconds(8)))
            case .retry(let reason, let detail, _):
                throw .providerFailed("the vision provider failed after \(attempt + 1) attempts: \(reason)", detail: detail)
            case .fail(let reason, let detail):
                throw .providerFailed(reason, detail: detail)
            }
        }
    }

    /// Reasons are shown to clients (a status code, a timeout); details are the provider's or
    /// the HTTP client's own words, for the log.
    enum Outcome {
        case answer(Data)
        case retry(String, detail: String?, after: Duration?)
        case fail(String, detail: String?)
    }

    private func send(_ body: Data) async -> Outcome {
        var request = HTTPClientRequest(url: configuration.baseURL.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let key = configuration.apiKey, !key.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        let timeout = TimeAmount.nanoseconds(Int64(configuration.timeout.components.seconds) * 1_000_000_000
                                             + configuration.timeout.components.attoseconds / 1_000_000_000)
        do {
            let response = try await client.execute(request, timeout: timeout)
            var buffer = try await response.body.collect(upTo: 4 * 1024 * 1024)
            let bytes = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
            let status = response.status.code
            if status == 200 { return .answer(bytes) }
            let detail = Self.errorMessage(bytes)
            if status == 429 || status >= 500 {
                return .retry("HTTP \(status)", detail: detail, after: Self.retryAfter(response.headers.first(name: "Retry-After")))
            }
            return .fail("the vision provider refused the request: HTTP \(status)", detail: detail)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return .retry("no answer within \(configuration.timeout)", detail: nil, after: nil)
        } catch {
            return .retry("the vision provider could not be reached", detail: "\(error)", after: nil)
        }
    }

    /// `Retry-After` in seconds, as a provider sends it: whole or fractional, never trusted past
    /// 30 s (and never turned into a number that cannot be represented).
    static func retryAfter(_ text: String?) -> Duration? {
        guard let text, let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else { return nil }
        return .milliseconds(Int(min(seconds, 30) * 1000))
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

    static func errorMessage(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let error = object["error"] as? [String: Any], let message = error["message"] as? String else { return nil }
        return String(message.prefix(300))
    }
}
