import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Apple's keys endpoint (`/auth/keys`) played over HTTP by the tests: it answers a JWKS, and
/// can hold every request until the test releases them — Apple being slow — while it counts
/// what it was asked.
public final class AppleKeysServer: Sendable {
    private struct State {
        var requests = 0
        var holding = true
        var held: [CheckedContinuation<Void, Never>] = []
    }

    private let jwks: Data
    private let state = Mutex(State())
    private let task = Mutex<Task<Void, any Error>?>(nil)
    private let port = Mutex(0)

    public init(jwksFile: URL) throws {
        jwks = try Data(contentsOf: jwksFile)
    }

    public var url: String { "http://127.0.0.1:\(port.withLock { $0 })/auth/keys" }
    public var requestCount: Int { state.withLock { $0.requests } }
    public var heldCount: Int { state.withLock { $0.held.count } }

    public func start() async throws {
        let router = Router()
        router.get("auth/keys") { [self] _, _ -> Response in
            await withCheckedContinuation { continuation in
                let go = state.withLock { state -> Bool in
                    state.requests += 1
                    if state.holding { state.held.append(continuation) }
                    return !state.holding
                }
                if go { continuation.resume() }
            }
            return Response(status: .ok, headers: [.contentType: "application/json"],
                             body: .init(byteBuffer: ByteBuffer(bytes: jwks)))
        }
        var logger = Logger(label: "apple-keys-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { [self] channel in self.port.withLock { $0 = channel.localAddress?.port ?? 0 } },
                              logger: logger)
        task.withLock { $0 = Task { try await app.runService() } }
        for _ in 0..<500 where port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Answers the held requests and every later one at once.
    public func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    public func stop() {
        release()
        task.withLock { $0 }?.cancel()
    }
}
