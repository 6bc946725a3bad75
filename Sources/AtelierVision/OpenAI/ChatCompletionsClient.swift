import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Ollama, vLLM, LM Studio
/// speak it): a JSON body POSTed to `{baseURL}/chat/completions`, retried with exponential
/// backoff on 429, 5xx and connection errors (honouring `Retry-After`). Used by the vision
/// provider for captions and critiques and by the Learn Assistant's chat.
package struct ChatCompletionsClient: Sendable {
    package struct Configuration: Sendable {
        /// Up to and including the API version, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
        package var baseURL: String
        package var apiKey: String?
        package var model: String
        /// Per attempt.
        package var timeout: Duration = .seconds(30)
        /// Attempts after the first, on 429 / 5xx / connection errors.
        package var maxRetries = 3
        /// First backoff; doubles per retry, capped at 8 s (a `Retry-After` header wins, capped at 30 s).
        package var backoff: Duration = .milliseconds(500)

        package init(baseURL: String, apiKey: String?, model: String) {
            (self.baseURL, self.apiKey, self.model) = (baseURL, apiKey, model)
        }
    }

    /// The answer's shape: the first choice's text, why it stopped, and the token usage.
    package struct Answer: Decodable, Sendable {
        package struct Choice: Decodable, Sendable {
            package struct Message: Decodable, Sendable { package var content: String? }
            package var message: Message?
            package var finish_reason: String?
        }
        package var choices: [Choice]?
        package var usage: TokenUsage?

        /// The first choice's text, trimmed; nil when there is none.
        package var text: String? {
            guard let text = choices?.first?.message?.content?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
    }

    package let configuration: Configuration
    /// Names the provider in failure reasons ("the vision provider", "the chat provider").
    let role: String
    let client: HTTPClient

    /// `settingPrefix` names the settings a misconfiguration message points at (`ATELIER_OPENAI`).
    package init(_ configuration: Configuration, role: String, settingPrefix: String = "ATELIER_OPENAI",
                client: HTTPClient = .shared) throws(VisionError) {
        guard let url = URL(string: configuration.baseURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw .configuration("\(settingPrefix)_BASE_URL must be an http(s) URL like https://api.openai.com/v1, got '\(configuration.baseURL)'")
        }
        guard !configuration.model.isEmpty else { throw .configuration("\(settingPrefix)_MODEL is empty") }
        (self.configuration, self.role, self.client) = (configuration, role, client)
    }

    /// The JSON request body for `messages` (each `{role, content}`; content a string or parts).
    package func body(messages: [[String: Any]], maxTokens: Int) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["model": configuration.model, "max_tokens": maxTokens, "messages": messages] as [String: Any])
    }

    /// One chat completion: sent, and retried with backoff on 429 / 5xx / connection errors.
    package func complete(_ body: Data) async throws(VisionError) -> Data {
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
                throw .providerFailed("\(role) failed after \(attempt + 1) attempts: \(reason)", detail: detail)
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
            return .fail("\(role) refused the request: HTTP \(status)", detail: detail)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return .retry("no answer within \(configuration.timeout)", detail: nil, after: nil)
        } catch {
            return .retry("\(role) could not be reached", detail: "\(error)", after: nil)
        }
    }

    /// `Retry-After` in seconds, as a provider sends it: whole or fractional, never trusted past
    /// 30 s (and never turned into a number that cannot be represented).
    static func retryAfter(_ text: String?) -> Duration? {
        guard let text, let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else { return nil }
        return .milliseconds(Int(min(seconds, 30) * 1000))
    }

    static func errorMessage(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let error = object["error"] as? [String: Any], let message = error["message"] as? String else { return nil }
        return String(message.prefix(300))
    }
}
