@testable import AtelierAPI
import AtelierStorage
import Foundation
import XCTest

/// The request-header parsers a client controls byte for byte: they answer, never trap.
final class RequestParsingTests: XCTestCase {
    func testRangesThatOverflowOrMislead() {
        let size = 1000
        // The review's crash: end + 1 on Int.max.
        XCTAssertEqual(ByteRange.parse("bytes=0-9223372036854775807", size: size), .range(0..<1000))
        XCTAssertEqual(ByteRange.parse("bytes=0-99999999999999999999999999", size: size), .range(0..<1000))
        XCTAssertEqual(ByteRange.parse("bytes=10-9223372036854775806", size: size), .range(10..<1000))
        XCTAssertEqual(ByteRange.parse("bytes=9223372036854775807-", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange.parse("bytes=99999999999999999999-5", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange.parse("bytes=-9223372036854775807", size: size), .range(0..<1000))
        XCTAssertEqual(ByteRange.parse("bytes=-99999999999999999999", size: size), .range(0..<1000))
        // Ordinary ones.
        XCTAssertEqual(ByteRange.parse("bytes=8-23", size: size), .range(8..<24))
        XCTAssertEqual(ByteRange.parse("bytes=999-999", size: size), .range(999..<1000))
        XCTAssertEqual(ByteRange.parse("bytes=990-", size: size), .range(990..<1000))
        XCTAssertEqual(ByteRange.parse("bytes=-12", size: size), .range(988..<1000))
        XCTAssertEqual(ByteRange.parse("  BYTES=0-0 ", size: size), .range(0..<1))
        XCTAssertEqual(ByteRange.parse("bytes=1000-", size: size), .unsatisfiable)
        XCTAssertEqual(ByteRange.parse("bytes=-0", size: size), .unsatisfiable)
        // Reversed, several, signed, spaced, other units, garbage: the whole file.
        for header in ["bytes=9-3", "bytes=0-1,5-9", "bytes=+5-9", "bytes=-+5", "bytes=--5", "bytes=5--9",
                       "bytes=0x10-", "bytes= 5-9", "bytes=5 -9", "bytes=", "bytes=-", "items=0-5", "bytes",
                       "", "bytes=\u{0660}-5", "bytes=５-9", String(repeating: "9", count: 10_000)] {
            XCTAssertEqual(ByteRange.parse(header, size: size), .whole, header)
        }
        XCTAssertEqual(ByteRange.parse("bytes=0-5", size: 0), .whole)
    }

    func testLastEventIDs() throws {
        XCTAssertNil(try LastEventID.parse(nil, allowParts: true))
        XCTAssertNil(try LastEventID.parse("  ", allowParts: true))
        XCTAssertEqual(try LastEventID.parse("42", allowParts: false), LastEventID(eventID: 42, part: nil))
        XCTAssertEqual(try LastEventID.parse(" 42.2 ", allowParts: true), LastEventID(eventID: 42, part: 2))
        XCTAssertEqual(try LastEventID.parse("999999999999999999", allowParts: false)?.eventID, 999_999_999_999_999_999)
        XCTAssertEqual(try LastEventID.parse("9223372036854775807", allowParts: false)?.eventID, Int64.max)
        for header in ["9223372036854775808", "18446744073709551616", "99999999999999999999", "-1", "+1", "4 2",
                       "42.", ".2", "42.0", "42.4", "0.1", "42.2.1", "42.99999999999999999999", "abc", "٤٢", "42.2"] {
            XCTAssertThrowsError(try LastEventID.parse(header, allowParts: header == "42.2" ? false : true), header)
        }
    }

    func testHeaderTextHelpers() throws {
        XCTAssertEqual(HeaderText.trimmed(" \t atl_x \t"), "atl_x")
        XCTAssertEqual(Authenticator.credential(xAppToken: "  atl_tok ", authorization: nil), "atl_tok")
        XCTAssertEqual(Authenticator.credential(xAppToken: nil, authorization: "Bearer  atl_tok "), "atl_tok")
        XCTAssertNil(Authenticator.credential(xAppToken: "   ", authorization: "Basic x"))
        // Tokens stored by earlier releases keep matching: the same lower-case hex SHA-256.
        XCTAssertEqual(AppTokens.hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let id = RequestID.make()
        XCTAssertEqual(UUID(uuidString: id)?.uuidString.lowercased(), id)
        XCTAssertNotEqual(RequestID.make(), id)
        // Request ids are made without asking the kernel each time; they stay distinct and shaped
        // like random (version 4) UUIDs.
        let ids = (0..<100_000).map { _ in RequestID.make() }
        XCTAssertEqual(Set(ids).count, ids.count)
        for id in ids.prefix(1_000) {
            XCTAssertEqual(UUID(uuidString: id)?.uuidString.lowercased(), id)
            XCTAssertEqual(Array(id)[14], "4", "version nibble")
            XCTAssertTrue("89ab".contains(Array(id)[19]), "RFC 4122 variant")
        }
        XCTAssertTrue(ETag.matches("\"abc\"", "\"abc\""))
        XCTAssertTrue(ETag.matches(" W/\"x\" , \"abc\"", "\"abc\""))
        XCTAssertTrue(ETag.matches(" * ", "\"abc\""))
        XCTAssertFalse(ETag.matches("\"abd\"", "\"abc\""))
    }
}
