@testable import AtelierAPI
import Foundation
import XCTest

/// `@NullWhenAbsent` writes a missing value as `null`, never leaving its key out.
final class NullWhenAbsentTests: XCTestCase {
    private struct Sample: Encodable {
        var name: String
        @NullWhenAbsent var finishedAt: Date?
        @NullWhenAbsent var note: String?
    }

    func testAMissingValueIsNullAndAPresentOneIsItself() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let missing = String(decoding: try encoder.encode(Sample(name: "a", finishedAt: nil, note: nil)), as: UTF8.self)
        XCTAssertEqual(missing, #"{"finishedAt":null,"name":"a","note":null}"#)
        let present = String(decoding: try encoder.encode(Sample(name: "a", finishedAt: nil, note: "n")), as: UTF8.self)
        XCTAssertEqual(present, #"{"finishedAt":null,"name":"a","note":"n"}"#)
    }
}
