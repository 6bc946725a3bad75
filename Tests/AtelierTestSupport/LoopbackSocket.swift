import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blocking TCP sockets on 127.0.0.1, for the relays tests put in front of a real server
/// (``ObjectStoreGate``, ``DatabaseSilencer``).
enum LoopbackSocket {
    /// A listening socket on a port of the kernel's choosing.
    static func listen() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw GateError("socket() failed") }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw GateError("cannot listen on loopback")
        }
        return fd
    }

    /// The next connection `listener` accepts; nil once it is shut down.
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            if client >= 0 { return client }
            if errno != EINTR { return nil }
        }
    }

    /// The port `fd` is bound to.
    static func localPort(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw GateError("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A socket connected to `port`.
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw GateError("socket() failed") }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw GateError("nothing answers on port \(port)")
        }
        return fd
    }

    /// Makes the coming `close(fd)` send a reset instead of a FIN (`SO_LINGER` of zero), as a
    /// kernel that gives up on a silent peer ends the connection, and wakes a thread blocked
    /// reading `fd` (`SHUT_RD` sends nothing).
    static func prepareReset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        shutdown(fd, Int32(SHUT_RD))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}

struct GateError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
