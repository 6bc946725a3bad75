#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Makes every connection this process holds to the database notice, within seconds, that the
/// database has gone without a word — a host that lost power, a container whose network was torn
/// down, packets dropped — instead of when the kernel gives up (about 15 minutes for a query in
/// flight, never for an idle pooled connection). Without it a worker whose connections died that
/// way after a PostgreSQL restart sat on a claim that would never be answered, ran no job, and
/// did not stop when told (docs/benchmarks/reliability.md "Cluster"; `ops/cluster` makes that outage).
///
/// PostgresNIO's pool opens its connections itself and offers no socket options, so this looks
/// at the process's own sockets (`/proc/self/fd`) once per `interval` and sets, on each TCP
/// socket connected to the database's port that it has not seen yet:
/// - TCP keepalive: after ``Settings/keepaliveIdle`` without traffic, a probe every
///   ``Settings/keepaliveInterval``; ``Settings/keepaliveCount`` unanswered probes close the
///   connection (an idle pooled connection, a `LISTEN` that waits for notifications);
/// - `TCP_USER_TIMEOUT`: data sent and not acknowledged for ``Settings/userTimeout`` closes it
///   (a query sent into the void).
/// The connection then fails with an error: the statement on it fails, the pool drops it and
/// the next statement gets a new one. A statement that runs long on a live server is not
/// touched: the server's kernel acknowledges both the statement and the probes.
///
/// A connection made less than `interval` before an outage may miss its options: the window is
/// one sweep. The cost is one `readlink` per open descriptor per sweep, and a `getpeername` and
/// a few `setsockopt` once per new socket: linear in the process's open descriptors (an API
/// process holding thousands of event streams pays for each of them every second; not measured).
package final class DeadConnectionDetector: Sendable {
    package struct Settings: Sendable, Equatable {
        package var keepaliveIdle: Duration = .seconds(5)
        package var keepaliveInterval: Duration = .seconds(2)
        package var keepaliveCount = 3
        package var userTimeout: Duration = .seconds(15)
        package init() {}
    }

    package let port: Int
    package let settings: Settings
    /// Sockets already looked at (by inode), so each is set once.
    private let seen = Mutex(Set<UInt64>())

    package init(databasePort port: Int, settings: Settings = Settings()) {
        self.port = port
        self.settings = settings
    }

    /// Sweeps once per `interval` until the task is cancelled.
    package func run(interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            _ = sweep()
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Sets the options on every database connection not seen before; how many it set them on.
    @discardableResult
    package func sweep() -> Int {
        #if os(Linux)
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var present = Set<UInt64>()
        var fresh: [(fd: Int32, inode: UInt64)] = []
        let known = seen.withLock { $0 }
        var link = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name) else { continue }
            let length = readlink("/proc/self/fd/\(name)", &link, link.count - 1)
            guard length > 9 else { continue }
            let text = String(decoding: link[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("socket:["), let inode = UInt64(text.dropFirst(8).dropLast()) else { continue }
            present.insert(inode)
            if !known.contains(inode) { fresh.append((fd, inode)) }
        }
        var set = 0
        var settled: [UInt64] = []
        for (fd, inode) in fresh {
            switch examine(fd) {
            case .database:
                set += 1
                settled.append(inode)
            case .other:
                settled.append(inode)
            case .notYet:
                break  // connecting: looked at again next sweep
            }
        }
        seen.withLock { seen in
            seen.formIntersection(present)
            seen.formUnion(settled)
        }
        return set
        #else
        return 0
        #endif
    }

    #if os(Linux)
    private enum Socket { case database, other, notYet }

    private func examine(_ fd: Int32) -> Socket {
        var type: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0, type == Int32(SOCK_STREAM.rawValue) else { return .other }
        var address = sockaddr_storage()
        var addressSize = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &addressSize) }
        }
        guard named == 0 else { return errno == ENOTCONN ? .notYet : .other }
        let peerPort: UInt16
        switch Int32(address.ss_family) {
        case AF_INET:
            peerPort = withUnsafeBytes(of: address) { $0.load(as: sockaddr_in.self).sin_port }
        case AF_INET6:
            peerPort = withUnsafeBytes(of: address) { $0.load(as: sockaddr_in6.self).sin6_port }
        default:
            return .other
        }
        guard Int(UInt16(bigEndian: peerPort)) == port else { return .other }
        let tcp = Int32(IPPROTO_TCP)
        set(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        set(fd, tcp, TCP_KEEPIDLE, Self.seconds(settings.keepaliveIdle))
        set(fd, tcp, TCP_KEEPINTVL, Self.seconds(settings.keepaliveInterval))
        set(fd, tcp, TCP_KEEPCNT, Int32(settings.keepaliveCount))
        set(fd, tcp, Self.tcpUserTimeout, Int32(settings.userTimeout.components.seconds * 1000))
        return .database
    }

    /// `TCP_USER_TIMEOUT` (linux/tcp.h), in milliseconds.
    private static let tcpUserTimeout: Int32 = 18

    private static func seconds(_ duration: Duration) -> Int32 { Int32(max(1, duration.components.seconds)) }

    private func set(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }
    #endif
}
