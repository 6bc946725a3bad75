import Foundation

/// A worker process as it registers itself.
package struct WorkerRegistration: Sendable {
    package var id: String
    package var host: String
    package var pid: Int
    package var queues: [String]
    package var kinds: [String]
    package var concurrency: Int
    package var version: String

    package init(id: String, host: String, pid: Int, queues: [String], kinds: [String], concurrency: Int, version: String) {
        self.id = id
        self.host = host
        self.pid = pid
        self.queues = queues
        self.kinds = kinds
        self.concurrency = concurrency
        self.version = version
    }

    /// `host/pid/random`: unique across machines and process restarts.
    package static func makeID(host: String = ProcessInfo.processInfo.hostName,
                              pid: Int = Int(ProcessInfo.processInfo.processIdentifier)) -> String {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "\(host)/\(pid)/\(suffix)"
    }
}

/// A registered worker as `atelier workers` shows it.
public struct WorkerInfo: Sendable, Equatable {
    public var id: String
    public var host: String
    public var pid: Int
    public var queues: [String]
    public var kinds: [String]
    public var concurrency: Int
    public var version: String
    public var running: Int
    public var processed: Int64
    public var startedAt: Date
    public var heartbeatAt: Date
    /// Holds its liveness lock right now (its process and connection are alive).
    public var alive: Bool
}
