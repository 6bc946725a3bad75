import Crypto
import Foundation

/// Pre-signed result URLs: `BASE/results/KEY?expires=UNIX&signature=SIG`, where SIG is the
/// base64url HMAC-SHA256 of `GET\nKEY\nEXPIRES` under the server's signing secret.
/// Anyone holding the URL may GET the blob until it expires; changing any part breaks it.
/// Who signs and who verifies, and Mondrian's signed image names: docs/architecture.md §3.
public struct URLSigner: Sendable {
    private let key: SymmetricKey
    /// How long a URL stays valid after it is issued.
    public let lifetime: Duration
    /// URLs issued within one window share an expiry, so a job's JSON (and its ETag) stays
    /// stable while pollers poll; a URL is valid for between `lifetime - window` and `lifetime`.
    public let window: Int

    public static let minimumSecretBytes = 32

    public init(secret: String, lifetime: Duration = .seconds(3600), window: Int = 300) throws(StorageError) {
        guard secret.utf8.count >= Self.minimumSecretBytes else {
            throw .configuration("ATELIER_SIGNING_SECRET must be at least \(Self.minimumSecretBytes) bytes "
                + "(e.g. `openssl rand -hex 32`); ./ops/run generates one on first run")
        }
        self.key = SymmetricKey(data: Data(secret.utf8))
        self.lifetime = lifetime
        self.window = max(1, min(window, Int(lifetime.components.seconds) / 2))
    }

    /// The expiry a URL issued `now` gets: its window's start plus the lifetime.
    public func expiry(now: Date = Date()) -> Int {
        windowStart(now) + lifetimeSeconds
    }

    /// When a URL issued `now` counts as issued: the start of its window, so every URL of one
    /// window is the same.
    public func issued(now: Date = Date()) -> Date {
        Date(timeIntervalSince1970: Double(windowStart(now)))
    }

    public var lifetimeSeconds: Int { Int(lifetime.components.seconds) }

    private func windowStart(_ now: Date) -> Int {
        (Int(now.timeIntervalSince1970) / window) * window
    }

    public func signature(for key: BlobKey, expires: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(Self.message(key, expires).utf8), using: self.key)
        return Base64URL.encode(Data(mac))
    }

    /// The path and query of a signed URL, to be put after the public base URL.
    public func signedPath(for key: BlobKey, now: Date = Date()) -> String {
        let expires = expiry(now: now)
        return "/results/\(key.path)?expires=\(expires)&signature=\(signature(for: key, expires: expires))"
    }

    public enum Verdict: Sendable, Equatable {
        case valid
        case expired
        case invalid
    }

    /// Checks a presented signature in constant time, then the expiry.
    public func verify(key: BlobKey, expires: Int, signature: String, now: Date = Date()) -> Verdict {
        verify(message: Self.message(key, expires), expires: expires, signature: signature, now: now)
    }

    /// The signature of a variant URL: the HMAC of `VARIANT\nKEY?PARAMETERS\nEXPIRES`, where
    /// `parameters` is the variant's canonical query (`w=…&h=…&fit=…&format=…&q=…`). Its own
    /// prefix: a result URL's signature never opens a variant, nor the other way round.
    public func variantSignature(for key: BlobKey, parameters: String, expires: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(Self.variantMessage(key, parameters, expires).utf8), using: self.key)
        return Base64URL.encode(Data(mac))
    }

    /// The path and query of a signed variant URL, to be put after the public base URL.
    public func signedVariantPath(for key: BlobKey, parameters: String, now: Date = Date()) -> String {
        let expires = expiry(now: now)
        return "/variants/\(key.path)?\(parameters)&expires=\(expires)&signature=\(variantSignature(for: key, parameters: parameters, expires: expires))"
    }

    /// Checks a variant URL's signature in constant time, then its expiry.
    public func verifyVariant(key: BlobKey, parameters: String, expires: Int, signature: String, now: Date = Date()) -> Verdict {
        verify(message: Self.variantMessage(key, parameters, expires), expires: expires, signature: signature, now: now)
    }

    private func verify(message: String, expires: Int, signature: String, now: Date) -> Verdict {
        // Only the canonical spelling: base64's last character carries unused bits, so several
        // strings decode to the same MAC — a changed URL must never still be valid.
        guard let presented = Base64URL.decode(signature), presented.count == SHA256.byteCount,
              Base64URL.encode(presented) == signature else { return .invalid }
        let authentic = HMAC<SHA256>.isValidAuthenticationCode(presented, authenticating: Data(message.utf8), using: self.key)
        guard authentic else { return .invalid }
        return Double(expires) >= now.timeIntervalSince1970 ? .valid : .expired
    }

    /// A permanent tag for a name that is itself a permission (Mondrian's image file names):
    /// the first 16 base64url characters (96 bits) of the HMAC-SHA256 of `NAME\n<name>`. It never
    /// expires; what it names stops existing when its job is purged.
    public func nameTag(_ name: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("NAME\n\(name)".utf8), using: key)
        return String(Base64URL.encode(Data(mac)).prefix(Self.nameTagLength))
    }

    public static let nameTagLength = 16

    /// Checks a presented name tag, comparing every byte whatever differs first.
    public func verifyNameTag(_ tag: String, for name: String) -> Bool {
        let expected = Array(nameTag(name).utf8), presented = Array(tag.utf8)
        guard presented.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(expected, presented) { difference |= a ^ b }
        return difference == 0
    }

    private static func message(_ key: BlobKey, _ expires: Int) -> String {
        "GET\n\(key.path)\n\(expires)"
    }

    private static func variantMessage(_ key: BlobKey, _ parameters: String, _ expires: Int) -> String {
        "VARIANT\n\(key.path)?\(parameters)\n\(expires)"
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5), byte by byte through two
/// tables: every signed URL is checked with it, so it stays off Foundation's string search.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Character → its 6-bit value; 0xFF for every character outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    package static func encode(_ data: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(data.underestimatedCount * 4 / 3 + 3)
        var bytes = data.makeIterator()
        while let a = bytes.next() {
            let b = bytes.next()
            let c = b == nil ? nil : bytes.next()
            out.append(alphabet[Int(a >> 2)])
            out.append(alphabet[Int((a & 0x03) << 4 | (b ?? 0) >> 4)])
            if let b { out.append(alphabet[Int((b & 0x0F) << 2 | (c ?? 0) >> 6)]) }
            if let c { out.append(alphabet[Int(c & 0x3F)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for any character outside the URL-safe alphabet (padding included) or an impossible
    /// length. The unused low bits of the last character are ignored, as base64 decoders do:
    /// callers that need one spelling compare the re-encoding.
    package static func decode(_ text: String) -> Data? {
        let characters = text.utf8
        guard characters.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0, bits: UInt32 = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> bits))
                accumulator &= (1 << bits) - 1
            }
        }
        return Data(out)
    }
}
