import AtelierTestSupport
import AtelierQueue
import Foundation
import XCTest

/// The diagnostic kinds (`noop`, `sleep`, `fail`, `echo`) are for tests and benchmarks: a
/// production worker neither offers nor runs them unless ATELIER_DIAGNOSTIC_KINDS=true.
final class DiagnosticKindsTests: DatabaseTestCase {
    func testWorkersRunDiagnosticKindsOnlyWhenAskedTo() async throws {
        let off = try await AtelierProcess.run(["work", "--kinds", "noop,sleep"], database: db.url,
                                               environment: ["ATELIER_DIAGNOSTIC_KINDS": "false"])
        XCTAssertNotEqual(off.status, 0, off.output)
        XCTAssertTrue(off.output.contains("noop, sleep: diagnostic kinds run only with ATELIER_DIAGNOSTIC_KINDS=true"), off.output)
        let bad = try await AtelierProcess.run(["work", "--kinds", "noop"], database: db.url,
                                               environment: ["ATELIER_DIAGNOSTIC_KINDS": "perhaps"])
        XCTAssertTrue(bad.output.contains("ATELIER_DIAGNOSTIC_KINDS must be true or false"), bad.output)
    }
}
