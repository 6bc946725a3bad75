import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to the test server, for what an HTTP client library will not do:
/// send half a request, wait between the head and the body, read the interim `100 Continue`.
package final class RawHTTPConnection {
    private let fd: Int32

    /// `source`: the loopback address to connect from (`127.0.0.2`: another client, to the server).
    package init(port: Int, readTimeout seconds: Int = 20, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    package func send(_ text: String) { send(Data(text.utf8)) }

    package func send(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// Reads until `marker` has arrived, the peer closes, or the read timeout passes.
    package func read(until marker: String) -> String {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// One request with `Connection: close`, and the whole answer: its status and header lines
    /// (names lower-cased), and its body.
    package static func exchange(port: Int, from source: String? = nil, method: String = "GET", path: String,
                                 headers: [(String, String)] = [], body: String = "") throws
        -> (status: Int, headers: [String: String], body: String)
    {
        let connection = try RawHTTPConnection(port: port, from: source)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.utf8.count)\r\n" }
        connection.send(head + "\r\n" + body)
        let answer = connection.read(until: "\u{0}")   // to the close
        let (top, _, rest) = answer.partitioned(by: "\r\n\r\n")
        let lines = top.components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            let (name, _, value) = line.partitioned(by: ":")
            fields[name.lowercased()] = value.trimmingCharacters(in: .whitespaces)
        }
        return (status, fields, rest)
    }

    /// True when the server closes the connection before the read timeout.
    package func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }
}

extension String {
    /// The text before the first `separator`, whether it was found, and the text after it.
    fileprivate func partitioned(by separator: String) -> (String, Bool, String) {
        guard let range = range(of: separator) else { return (self, false, "") }
        return (String(self[..<range.lowerBound]), true, String(self[range.upperBound...]))
    }
}
