import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The real SeaweedFS of ./ops/test behind a loopback relay a test can shut: ``shut()`` cuts
/// every connection through it and closes each new one at once, so to the stores pointed at
/// ``endpoint`` the object store is down (the request finds no server to answer it), and
/// ``open()`` brings it back. The server other tests share keeps running, and nothing waits for
/// a clock: the store is down from the moment `shut()` returns.
public final class ObjectStoreGate: Sendable {
    /// `http://127.0.0.1:PORT`: the relay, to use as a store's endpoint.
    public let endpoint: String
    private let listener: Int32
    private let target: Int
    private let state = Mutex(State())

    private struct State {
        var down = false
        var connections: [Int32] = []
    }

    /// A relay to the store at `ATELIER_TEST_S3_ENDPOINT` (a loopback URL with a port).
    public init() throws {
        let configuration = try TestObjectStore.configuration()
        guard let port = URLComponents(string: configuration.endpoint)?.port else {
            throw GateError("ATELIER_TEST_S3_ENDPOINT has no port: \(configuration.endpoint)")
        }
        target = port
        listener = try LoopbackSocket.listen()
        endpoint = "http://127.0.0.1:\(try LoopbackSocket.localPort(listener))"
        let gate = self
        Thread.detachNewThread { gate.acceptLoop() }
    }

    /// The object store goes down: open connections are cut and new ones closed at once.
    public func shut() {
        state.withLock { state in
            state.down = true
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// The object store is back.
    public func open() {
        state.withLock { $0.down = false }
    }

    /// Stops the relay for good (the end of a test).
    public func stop() {
        state.withLock { state in
            state.down = true
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    // MARK: Relay

    private func acceptLoop() {
        while let client = LoopbackSocket.accept(listener) {
            let admitted = state.withLock { state -> Bool in
                guard !state.down else { return false }
                state.connections.append(client)
                return true
            }
            guard admitted, let server = try? LoopbackSocket.connect(port: target) else {
                forget(client)
                continue
            }
            let added = state.withLock { state -> Bool in
                guard !state.down else { return false }
                state.connections.append(server)
                return true
            }
            guard added else {
                forget(client)
                close(server)
                continue
            }
            let pair = RelayPair { [self] in forget(client); forget(server) }
            Thread.detachNewThread { pair.pump(from: client, to: server) }
            Thread.detachNewThread { pair.pump(from: server, to: client) }
        }
        close(listener)
        let left = state.withLock { state in
            let left = state.connections
            state.connections = []
            return left
        }
        for fd in left { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func forget(_ fd: Int32) {
        state.withLock { $0.connections.removeAll { $0 == fd } }
        close(fd)
    }
}

/// One relayed connection: two pumps, one a direction; when both have ended, both sockets are
/// closed.
private final class RelayPair: Sendable {
    private let ended = Mutex(0)
    private let done: @Sendable () -> Void

    init(done: @escaping @Sendable () -> Void) {
        self.done = done
    }

    func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let wrote = buffer.withUnsafeBytes { send(sink, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else { break copying }
                sent += wrote
            }
        }
        // The other direction learns of the end; the socket read from reads no more.
        shutdown(sink, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
        if ended.withLock({ count in count += 1; return count }) == 2 { done() }
    }
}
