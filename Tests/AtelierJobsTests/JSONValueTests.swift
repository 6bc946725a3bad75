import AtelierJobs
import Foundation
import XCTest

/// JSON passed through unread (a job's result in a view, a document's metadata) comes out as
/// it went in: whole numbers stay whole, booleans stay booleans, nothing is dropped.
final class JSONValueTests: XCTestCase {
    func testPassThrough() throws {
        let text = #"{"a":[1,2.5,true,null,"x/y"],"b":{"c":-3},"d":1.2345678901234567e+19,"e":""}"#
        let value = try JSONValue.parse(Data(text.utf8))
        XCTAssertEqual(try ContractJSON.text(value), text)
        XCTAssertEqual(value.object?["a"]?.array?.map(\.integer), [1, nil, nil, nil, nil])
        XCTAssertEqual(value.object?["a"]?.array?[2].double, nil, "a boolean is not a number")
        XCTAssertEqual(JSONValue.number(250.0).integer, 250)
    }

    func testNulPaths() throws {
        let value = try JSONValue.parse(Data(#"{"a": [1, {"b": "x\u0000"}]}"#.utf8))
        XCTAssertEqual(value.nulPath(at: "options"), "options.a[1].b")
        XCTAssertNil(JSONValue.string("fine").nulPath(at: "x"))
    }
}
