import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import ServiceLifecycle
import Synchronization
import Logging

/// A small server that speaks the OpenAI chat-completions protocol as documented — a JSON
/// request with `model` and `messages` (text and `image_url` parts), answers with `choices`
/// and `usage`, errors as `{error: {message, type}}` — and replays a script of answers, so the
/// provider meets 429s, 5xx, malformed bodies and slow answers for real over HTTP.
public final class ChatCompletionsServer: @unchecked Sendable {
    public enum Step: Sendable {
        case caption(String, finishReason: String = "stop")
        case error(Int, String, retryAfter: Int? = nil)
        case raw(Int, String)
        case slow(Duration, then: String)
    }

    private let script: Mutex<[Step]>
    private let raw = Mutex<[(headers: [String: String], body: Data)]>([])
    private var task: Task<Void, any Error>?
    public private(set) var baseURL = ""

    public init(_ steps: [Step]) { script = Mutex(steps) }

    public var requestCount: Int { raw.withLock { $0.count } }

    /// What the provider sent, in order: headers and the parsed JSON body.
    public var received: [(headers: [String: String], body: [String: Any])] {
        raw.withLock { $0 }.map { ($0.headers, (try? JSONSerialization.jsonObject(with: $0.body)) as? [String: Any] ?? [:]) }
    }

    public func start() async throws {
        let router = Router()
        router.post("v1/chat/completions") { [self] request, _ -> Response in
            var body = try await request.body.collect(upTo: 32 * 1024 * 1024)
            let data = Data(body.readBytes(length: body.readableBytes) ?? [])
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
            raw.withLock { $0.append((headers, data)) }
            let step = script.withLock { $0.isEmpty ? Step.error(500, "the script is over") : $0.removeFirst() }
            switch step {
            case .caption(let text, let finish):
                return Self.json(200, Self.completion(text, finishReason: finish))
            case .error(let status, let message, let retryAfter):
                var response = Self.json(status, #"{"error": {"message": "\#(message)", "type": "server_error"}}"#)
                if let retryAfter { response.headers[HTTPField.Name("Retry-After")!] = String(retryAfter) }
                return response
            case .raw(let status, let text):
                return Self.json(status, text)
            case .slow(let delay, let text):
                try await Task.sleep(for: delay)
                return Self.json(200, Self.completion(text, finishReason: "stop"))
            }
        }
        let port = Mutex(0)
        var logger = Logger(label: "chat-completions-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port ?? 0 } }, logger: logger)
        task = Task { try await app.runService() }
        for _ in 0..<200 where port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        baseURL = "http://127.0.0.1:\(port.withLock { $0 })/v1"
    }

    public func stop() { task?.cancel() }

    static func completion(_ text: String, finishReason: String) -> String {
        let content = String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: .fragmentsAllowed), as: UTF8.self).dropFirst().dropLast()
        return """
            {"id": "chatcmpl-1", "object": "chat.completion", "model": "test-vision",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": \(content)}, "finish_reason": "\(finishReason)"}],
             "usage": {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}}
            """
    }

    static func json(_ status: Int, _ text: String) -> Response {
        Response(status: .init(code: status), headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
