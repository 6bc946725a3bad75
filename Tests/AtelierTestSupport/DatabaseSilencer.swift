import AtelierDatabase
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL of ./ops/test behind a loopback relay whose connections can go silent, as when
/// the database's host vanishes behind a dead network: ``silence()`` makes every connection open
/// now swallow what either side sends — nothing is answered and nothing closes —
/// ``silenceAnswers()`` only what the server sends (a statement arrives and runs, its answer is
/// lost), and ``cut()`` then resets them, as the client's kernel ends a connection whose peer
/// stopped answering (`TCP_USER_TIMEOUT`, keepalive). Connections made after that are relayed as
/// usual: the database is back. Nothing waits for a clock: each step has happened when its call
/// returns.
public final class DatabaseSilencer: Sendable {
    /// The test database's URL with the relay's port.
    public let url: DatabaseURL
    private let listener: Int32
    private let target: Int
    private let state = Mutex(State())

    private struct State {
        var connections: [Int: Relayed] = [:]
        var next = 0
        var stopped = false
        /// Bytes a silenced connection's client sent, and the waiters for the next ones.
        var swallowed = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Relayed {
        var client: Int32
        var server: Int32
        var silence = Silence.none
        var ended = 0
    }

    private enum Silence {
        case none
        /// Both ways.
        case both
        /// What the server sends only.
        case answers
    }

    /// A relay to the database `url` names.
    public init(_ url: DatabaseURL) throws {
        target = url.port
        listener = try LoopbackSocket.listen()
        var relayed = url
        relayed.port = try LoopbackSocket.localPort(listener)
        self.url = relayed
        let relay = self
        Thread.detachNewThread { relay.acceptLoop() }
    }

    /// Every connection open now goes silent for good.
    public func silence() { silenceOpenConnections(.both) }

    /// Every connection open now loses what the server sends, for good: statements still reach
    /// the server and run, and their answers never come back.
    public func silenceAnswers() { silenceOpenConnections(.answers) }

    private func silenceOpenConnections(_ silence: Silence) {
        state.withLock { state in
            for key in state.connections.keys { state.connections[key]?.silence = silence }
        }
    }

    /// Returns once a silenced connection's client has sent something into the silence (its
    /// first bytes after ``silence()``, or the next ones after an earlier wait).
    public func waitForWriteIntoTheSilence() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.swallowed > 0 {
                    state.swallowed = 0
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Resets every silenced connection: its client's reads and writes fail from now on.
    public func cut() {
        state.withLock { state in
            for relayed in state.connections.values where relayed.silence != .none {
                LoopbackSocket.prepareReset(relayed.client)
                shutdown(relayed.server, Int32(SHUT_RDWR))
            }
        }
    }

    /// Stops the relay and ends its connections (the end of a test).
    public func stop() {
        state.withLock { state in
            state.stopped = true
            for relayed in state.connections.values {
                shutdown(relayed.client, Int32(SHUT_RDWR))
                shutdown(relayed.server, Int32(SHUT_RDWR))
            }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    // MARK: Relay

    private func acceptLoop() {
        while let client = LoopbackSocket.accept(listener) {
            guard let server = try? LoopbackSocket.connect(port: target) else {
                close(client)
                continue
            }
            let key = state.withLock { state -> Int? in
                guard !state.stopped else { return nil }
                state.next += 1
                state.connections[state.next] = Relayed(client: client, server: server)
                return state.next
            }
            guard let key else {
                close(client)
                close(server)
                continue
            }
            Thread.detachNewThread { self.pump(key, from: client, to: server, fromClient: true) }
            Thread.detachNewThread { self.pump(key, from: server, to: client, fromClient: false) }
        }
        close(listener)
    }

    /// Copies `source` to `sink` until the connection is silenced in this direction; from then on
    /// swallows what `source` sends. The second pump to end closes both sockets.
    private func pump(_ key: Int, from source: Int32, to sink: Int32, fromClient: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let silenced = state.withLock { state -> Bool in
                switch state.connections[key]?.silence ?? .none {
                case .none: return false
                case .answers: return !fromClient
                case .both:
                    if fromClient { state.swallowed += count }
                    return true
                }
            }
            if silenced {
                if fromClient { wakeWaiters() }
                continue
            }
            var sent = 0
            while sent < count {
                let wrote = buffer.withUnsafeBytes { send(sink, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else { break copying }
                sent += wrote
            }
        }
        let last = state.withLock { state -> Relayed? in
            guard var relayed = state.connections[key] else { return nil }
            relayed.ended += 1
            if relayed.silence == .none {
                // The other direction learns of the end; the socket read from reads no more.
                shutdown(sink, Int32(SHUT_WR))
                shutdown(source, Int32(SHUT_RD))
            }
            if relayed.ended == 2 {
                state.connections[key] = nil
                return relayed
            }
            state.connections[key] = relayed
            return nil
        }
        if let last {
            close(last.client)
            close(last.server)
        }
    }

    private func wakeWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.waiters.isEmpty else { return [] }
            state.swallowed = 0
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
