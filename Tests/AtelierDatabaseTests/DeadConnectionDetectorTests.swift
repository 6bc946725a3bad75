import AtelierDatabase
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The detector sets keepalive and a user timeout on the process's sockets connected to the
/// database's port, once each, and leaves every other socket alone. (That a worker then gets
/// past a database that vanished without a word is proven by `ops/cluster`, which makes that
/// outage with network namespaces.)
final class DeadConnectionDetectorTests: XCTestCase {
    func testItSetsTheOptionsOnConnectionsToTheDatabasePortOnly() throws {
        let database = try Listener()
        let other = try Listener()
        let toDatabase = try database.connect()
        let toOther = try other.connect()
        defer { close(toDatabase); close(toOther) }
        XCTAssertEqual(option(toDatabase, SOL_SOCKET, SO_KEEPALIVE), 0, "off to begin with")

        let detector = DeadConnectionDetector(databasePort: database.port)
        XCTAssertEqual(detector.sweep(), 1, "the one connection to the database's port")
        XCTAssertEqual(option(toDatabase, SOL_SOCKET, SO_KEEPALIVE), 1)
        XCTAssertEqual(option(toDatabase, Int32(IPPROTO_TCP), TCP_KEEPIDLE), 5)
        XCTAssertEqual(option(toDatabase, Int32(IPPROTO_TCP), TCP_KEEPINTVL), 2)
        XCTAssertEqual(option(toDatabase, Int32(IPPROTO_TCP), TCP_KEEPCNT), 3)
        XCTAssertEqual(option(toDatabase, Int32(IPPROTO_TCP), 18 /* TCP_USER_TIMEOUT */), 15_000)
        XCTAssertEqual(option(toOther, SOL_SOCKET, SO_KEEPALIVE), 0, "a connection elsewhere is left alone")
        XCTAssertEqual(option(toOther, Int32(IPPROTO_TCP), 18), 0)

        XCTAssertEqual(detector.sweep(), 0, "each socket is set once")
        let second = try database.connect()
        defer { close(second) }
        XCTAssertEqual(detector.sweep(), 1, "a new connection is set at the next sweep")
        XCTAssertEqual(option(second, SOL_SOCKET, SO_KEEPALIVE), 1)
    }

    private func option(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var size = socklen_t(MemoryLayout<Int32>.size)
        XCTAssertEqual(getsockopt(fd, level, name, &value, &size), 0)
        return value
    }
}

/// A TCP listener on a loopback port of the kernel's choosing.
private final class Listener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, size) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &size) == 0
            }
        }
        guard bound else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// A connected client socket (the kernel completes the handshake from the backlog).
    func connect() throws -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(client); throw POSIXError(.ECONNREFUSED) }
        return client
    }
}
