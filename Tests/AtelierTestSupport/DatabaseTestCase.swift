import AtelierQueue
import XCTest

/// A test case with its own freshly migrated database, dropped after each test.
open class DatabaseTestCase: XCTestCase {
    public var db: TestDatabase!
    public var queue: JobQueue { db.queue }

    open override func setUp() async throws {
        db = try await TestDatabase.make()
    }

    open override func tearDown() async throws {
        await db?.drop()
    }
}
