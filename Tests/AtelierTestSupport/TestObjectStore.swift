import AtelierDatabase
import AtelierStorage
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The SeaweedFS that `./ops/test` starts (`ATELIER_TEST_S3_ENDPOINT`, `_BUCKET`, `_REGION`,
/// `_ACCESS_KEY_ID`, `_SECRET_ACCESS_KEY`): an ``S3BlobStore`` per test, each under a key prefix
/// of its own in the test bucket, so tests never see each other's objects.
public enum TestObjectStore {
    public static func configuration(keyPrefix: String = "t-\(UUID().uuidString.lowercased())/") throws -> S3Configuration {
        let environment = ProcessInfo.processInfo.environment
        func value(_ name: String) throws -> String {
            guard let text = environment[name], !text.isEmpty else {
                throw ConfigurationError("\(name) is not set: run the tests with ./ops/test, which starts SeaweedFS")
            }
            return text
        }
        return S3Configuration(
            endpoint: try value("ATELIER_TEST_S3_ENDPOINT"), bucket: try value("ATELIER_TEST_S3_BUCKET"),
            region: environment["ATELIER_TEST_S3_REGION"] ?? "us-east-1",
            credentials: SigV4Credentials(accessKeyID: try value("ATELIER_TEST_S3_ACCESS_KEY_ID"),
                                          secretAccessKey: try value("ATELIER_TEST_S3_SECRET_ACCESS_KEY")),
            keyPrefix: keyPrefix)
    }

    public static func make(_ configuration: S3Configuration? = nil) throws -> S3BlobStore {
        try S3BlobStore(configuration: configuration ?? self.configuration(), logger: quietLogger)
    }

    /// The same store with a wrong secret: the server refuses every request.
    public static func withWrongSecret() throws -> S3BlobStore {
        var configuration = try configuration()
        configuration.credentials.secretAccessKey += "-wrong"
        return try make(configuration)
    }

    /// A store that reaches the test SeaweedFS through `gate` (``ObjectStoreGate``), so the test
    /// can make it go down and come back; each request is tried `attempts` times, quickly.
    public static func behind(_ gate: ObjectStoreGate, attempts: Int = 2) throws -> S3BlobStore {
        var configuration = try configuration()
        configuration.endpoint = gate.endpoint
        configuration.retries = S3RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        return try make(configuration)
    }

    /// The same bucket and key prefix as `store`, reached directly (not through a gate).
    public static func direct(_ store: S3BlobStore) throws -> S3BlobStore {
        var configuration = store.configuration
        configuration.endpoint = try self.configuration().endpoint
        return try make(configuration)
    }

    /// A store at a port nothing listens on: every request is refused at connect (the store is
    /// down), and given up after the retry policy's attempts.
    public static func unreachable(attempts: Int = 2) throws -> S3BlobStore {
        var configuration = try configuration()
        configuration.endpoint = "http://127.0.0.1:\(try closedPort())"
        configuration.retries = S3RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        return try make(configuration)
    }

    /// Removes every object under the store's key prefix.
    public static func clean(_ store: S3BlobStore) async {
        var root = store.configuration
        let prefix = String(root.keyPrefix.dropLast())
        guard !prefix.isEmpty else { return }
        root.keyPrefix = ""
        // Straight to SeaweedFS, even for a store behind a gate that is shut.
        if let endpoint = try? configuration().endpoint { root.endpoint = endpoint }
        try? await make(root).deleteAll(under: prefix)
    }

    static let quietLogger: Logger = {
        var logger = Logger(label: "test-object-store")
        logger.logLevel = .critical
        return logger
    }()

    /// A loopback port that was free a moment ago: bound to port 0, read, closed.
    public static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ConfigurationError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw ConfigurationError("bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ConfigurationError("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
