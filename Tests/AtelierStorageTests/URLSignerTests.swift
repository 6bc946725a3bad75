import AtelierStorage
import Foundation
import XCTest

/// Pre-signed URLs: what a signature accepts.
final class URLSignerTests: XCTestCase {
    /// Base64's last character of a 32-byte MAC carries 2 unused bits: four spellings decode to
    /// the same bytes. Only the canonical one is valid (the tampered-URL test was flaky for it).
    func testOnlyTheCanonicalSignatureSpellingIsValid() throws {
        let signer = try URLSigner(secret: String(repeating: "s3cr3t-", count: 6))
        let key = BlobKey.jobResult(UUID(), fileExtension: "png")
        let expires = Int(Date().timeIntervalSince1970) + 600
        let signature = signer.signature(for: key, expires: expires)
        XCTAssertEqual(signer.verify(key: key, expires: expires, signature: signature), .valid)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try XCTUnwrap(alphabet.firstIndex(of: try XCTUnwrap(signature.last)))
        for sibling in (last & ~3)...(last | 3) where sibling != last {
            let spelled = String(signature.dropLast()) + String(alphabet[sibling])
            XCTAssertEqual(Base64URL.decode(spelled), Base64URL.decode(signature), "same bytes")
            XCTAssertEqual(signer.verify(key: key, expires: expires, signature: spelled), .invalid, spelled)
        }
    }

    /// The table codec spells every length as Foundation's base64 does (URL-safe, unpadded), reads
    /// back what it wrote, and refuses what is not base64url.
    func testBase64URLMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let reference = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            XCTAssertEqual(Base64URL.encode(bytes), reference, "\(length) bytes")
            XCTAssertEqual(Base64URL.decode(reference), bytes, "\(length) bytes")
        }
        for bad in ["a", "abcde", "ab+c", "ab/c", "abc=", "ab c", "ab\u{e9}"] {
            XCTAssertNil(Base64URL.decode(bad), bad)
        }
    }
}
