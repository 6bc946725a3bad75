import Crypto
import Foundation

/// Lower-case hex of SHA-256 digests and HMACs, as SigV4 writes them.
enum SigV4Hex {
    static func sha256(_ text: String) -> String { sha256(Data(text.utf8)) }

    static func sha256(_ data: Data) -> String { encode(SHA256.hash(data: data)) }

    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The SHA-256 of an empty payload.
    static let emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}
