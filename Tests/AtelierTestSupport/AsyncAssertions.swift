import XCTest

// XCTest's assertions take synchronous autoclosures; these await the value first.

public func XCTAssertEqualAsync<T: Equatable>(
    _ expression: @autoclosure () async throws -> T, _ expected: @autoclosure () -> T,
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) async throws {
    let value = try await expression()
    XCTAssertEqual(value, expected(), message(), file: file, line: line)
}

public func XCTAssertTrueAsync(
    _ expression: @autoclosure () async throws -> Bool,
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) async throws {
    let value = try await expression()
    XCTAssertTrue(value, message(), file: file, line: line)
}

public func XCTAssertNotEqualAsync<T: Equatable>(
    _ expression: @autoclosure () async throws -> T, _ expected: @autoclosure () -> T,
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) async throws {
    let value = try await expression()
    XCTAssertNotEqual(value, expected(), message(), file: file, line: line)
}
