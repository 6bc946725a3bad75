import AtelierHashing
import XCTest

final class FNV1aTests: XCTestCase {
    /// The reference values of 64-bit FNV-1a (the test vectors published with the algorithm):
    /// migration checksums already stored in databases depend on them.
    func testKnownValues() {
        XCTAssertEqual(FNV1a.hash([UInt8]()), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(FNV1a.hash("a".utf8), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(FNV1a.hash("foobar".utf8), 0x8594_4171_f739_67e8)
    }

    func testCombiningInPartsIsHashingTheWhole() {
        let bytes = Array("the same in every process".utf8)
        var hasher = FNV1a()
        hasher.combine(bytes[..<7])
        hasher.combine(bytes[7...])
        XCTAssertEqual(hasher.value, FNV1a.hash(bytes))
        XCTAssertEqual(bytes.withUnsafeBytes { FNV1a.hash($0) }, FNV1a.hash(bytes))
    }
}
