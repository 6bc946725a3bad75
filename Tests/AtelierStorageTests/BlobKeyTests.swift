import AtelierStorage
import XCTest

/// The one check between a URL path and the file system: what a blob key may be.
final class BlobKeyTests: XCTestCase {
    func testKeysThatCannotLeaveTheStoreAreRefused() {
        for good in ["a", "jobs/0a-b_c/input.jpg", "x/y.z/w", "a..b/c", String(repeating: "k", count: 512)] {
            XCTAssertEqual(try? BlobKey(good).path, good, good)
        }
        for bad in ["", "/abs", "trailing/", "a//b", ".", "..", "../etc/passwd", "jobs/../x", "jobs/./x", "jobs/.hidden",
                    "a/..", "sp ace", "tab\t", "ümlaut", "back\\slash", "q?x", String(repeating: "k", count: 513)] {
            XCTAssertThrowsError(try BlobKey(bad), bad)
        }
    }
}
