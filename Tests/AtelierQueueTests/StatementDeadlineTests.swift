@testable import AtelierQueue
import XCTest

/// The bound on a worker's wait for one of its statements: the statement's own outcome when it
/// has one, ``StatementUnanswered`` when it never answers (as a statement the driver lost), and
/// the caller's cancellation passed on to it.
final class StatementDeadlineTests: XCTestCase {
    func testAStatementThatAnswersGivesItsAnswer() async throws {
        let deadline = StatementDeadline(.seconds(60))
        let value = try await deadline.run("a test") { 42 }
        XCTAssertEqual(value, 42)
        do {
            _ = try await deadline.run("a test") { () async throws -> Int in throw QueueError.conflict("refused") }
            XCTFail("the statement's error is thrown")
        } catch let error as QueueError {
            XCTAssertEqual(error, .conflict("refused"))
        }
    }

    func testAStatementThatNeverAnswersIsGivenUp() async throws {
        let never = Gate()  // never opened: the wait ignores cancellation, as a lost statement does
        let deadline = StatementDeadline(.milliseconds(50))
        do {
            _ = try await deadline.run("a lost statement") { () async throws -> Int in
                await never.wait()
                return 1
            }
            XCTFail("a statement that never answers is given up")
        } catch let error as StatementUnanswered {
            XCTAssertEqual(error.description, "the database did not answer a lost statement within 0.05 seconds")
        }
    }

    func testCancellingTheCallerCancelsTheStatementAndWaitsForIt() async throws {
        let started = Gate()
        let deadline = StatementDeadline(.seconds(3600))
        let caller = Task {
            try await deadline.run("a long statement") { () async throws -> Int in
                started.open()
                try await Task.sleep(for: .seconds(3600))
                return 1
            }
        }
        await started.wait()
        caller.cancel()
        do {
            _ = try await caller.value
            XCTFail("the statement was cancelled")
        } catch {
            XCTAssertTrue(error is CancellationError, "the statement's own outcome, not the limit's: \(error)")
        }
    }
}
