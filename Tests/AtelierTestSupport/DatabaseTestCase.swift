import AtelierDatabase
import AtelierQueue
import XCTest

/// A test case with its own freshly migrated database, dropped after each test.
open class DatabaseTestCase: XCTestCase {
    public var db: TestDatabase!
    public var queue: JobQueue { db.queue }

    /// The migration lines the test's database gets: all of them, unless a test embeds fewer.
    open var migrationLines: [MigrationLine] { TestDatabase.allLines }

    open override func setUp() async throws {
        db = try await TestDatabase.make(lines: migrationLines)
    }

    open override func tearDown() async throws {
        await db?.drop()
    }
}
