import Crypto
import Synchronization
import CryptoExtras
import Foundation

/// Passwords are kept as scrypt hashes (memory-hard: 2^15 rounds × 8 × 128 bytes = 32 MiB per
/// check, so guessing on GPUs is expensive), in the self-describing form
/// `scrypt$<log2 rounds>$<block size>$<parallelism>$<salt>$<key>` (base64url), so the cost can be
/// raised later and old hashes still verify. Checks compare in constant time, and a check against
/// no stored hash costs the same as a real one (``verify(_:against:)`` with nil): an unknown email
/// and a wrong password take the same time.
package struct PasswordHasher: Sendable {
    package var logRounds: Int
    package var blockSize: Int
    package var parallelism: Int

    package static let minimumLength = 8
    package static let maximumBytes = 1024

    package init(logRounds: Int = 15, blockSize: Int = 8, parallelism: Int = 1) {
        (self.logRounds, self.blockSize, self.parallelism) = (logRounds, blockSize, parallelism)
    }

    /// Refuses passwords too short to be worth hashing, or long enough to be a denial of service.
    package static func validate(_ password: String) throws(AccountError) {
        guard password.count >= minimumLength else {
            throw .invalidArgument("a password needs at least \(minimumLength) characters")
        }
        guard password.utf8.count <= maximumBytes else {
            throw .invalidArgument("a password may have at most \(maximumBytes) bytes")
        }
    }

    package func hash(_ password: String) throws -> String {
        try Self.validate(password)
        var salt = [UInt8](repeating: 0, count: 16)
        var random = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &random) }
        let key = try derive(password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        return ["scrypt", "\(logRounds)", "\(blockSize)", "\(parallelism)",
                Self.base64url(Data(salt)), Self.base64url(key)].joined(separator: "$")
    }

    /// Whether `password` matches `stored`. With no stored hash (an unknown email, a user who
    /// signs in with Apple only) it does the same work against a fixed hash and answers false.
    package func verify(_ password: String, against stored: String?) -> Bool {
        guard password.utf8.count <= Self.maximumBytes else { return false }
        let parts = (stored ?? dummy).split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt",
              let logRounds = Int(parts[1]), (10...20).contains(logRounds),
              let blockSize = Int(parts[2]), (1...32).contains(blockSize),
              let parallelism = Int(parts[3]), (1...16).contains(parallelism),
              let salt = Self.data(base64url: parts[4]), let expected = Self.data(base64url: parts[5]),
              let key = try? derive(password, salt: [UInt8](salt), logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        let matches = Self.constantTimeEqual(key, expected)
        return stored != nil && matches
    }

    /// A hash of a random password at this hasher's cost, made once per process: what unknown
    /// emails are checked against.
    private var dummy: String { Self.dummies.value(for: self) }

    private func derive(_ password: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: 32,
                                           rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64url text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    private static let dummies = DummyHashes()
}

/// One dummy hash per cost setting, made on first use.
private final class DummyHashes: Sendable {
    private let cache = Mutex([String: String]())

    func value(for hasher: PasswordHasher) -> String {
        let key = "\(hasher.logRounds)/\(hasher.blockSize)/\(hasher.parallelism)"
        if let hash = cache.withLock({ $0[key] }) { return hash }
        let hash = (try? hasher.hash(UUID().uuidString + UUID().uuidString)) ?? ""
        cache.withLock { $0[key] = hash }
        return hash
    }
}
