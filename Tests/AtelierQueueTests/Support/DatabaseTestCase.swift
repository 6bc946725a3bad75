import AtelierQueue
import XCTest

/// A test case with its own freshly migrated database, dropped after each test.
class DatabaseTestCase: XCTestCase {
    var db: TestDatabase!
    var queue: JobQueue { db.queue }

    override func setUp() async throws {
        db = try await TestDatabase.make()
    }

    override func tearDown() async throws {
        await db?.drop()
    }
}
