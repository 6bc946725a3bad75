import AtelierAppsSchema
import AtelierDatabase
import AtelierQueue
import Foundation
import Logging
import PostgresNIO
import XCTest

/// A fresh, migrated database on the PostgreSQL that `./ops/test` started, one per test,
/// dropped afterwards. `ATELIER_TEST_DATABASE_URL` names the server (its `postgres` database).
public final class TestDatabase: Sendable {
    public let url: DatabaseURL
    public let queue: JobQueue
    private let admin: DatabaseURL
    private let runner: Task<Void, Never>

    public static func adminURL() throws -> DatabaseURL {
        guard let text = ProcessInfo.processInfo.environment["ATELIER_TEST_DATABASE_URL"], !text.isEmpty else {
            throw ConfigurationError("ATELIER_TEST_DATABASE_URL is not set: run the tests with ./ops/test, which starts PostgreSQL")
        }
        return try DatabaseURL(parsing: text)
    }

    /// The migration lines `atelier` applies: the queue's, then the apps'.
    public static let allLines: [MigrationLine] = [QueueSchema.line, AppsSchema.line]

    /// A new database with `lines` applied (all of them unless a test asks for fewer; none: empty).
    public static func make(_ name: String = #function, lines: [MigrationLine] = allLines) async throws -> TestDatabase {
        let admin = try adminURL()
        let database = "atelier_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try await adminExecute(admin, "CREATE DATABASE \(database)")
        let url = admin.with(database: database)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let queue = JobQueue(url: url, applicationName: "atelier-test", maxConnections: 20, logger: logger)
        let runner = Task { await queue.run() }
        let db = TestDatabase(url: url, queue: queue, admin: admin, runner: runner)
        if !lines.isEmpty { try await Migrator(database: queue.database, lines: lines).migrate() }
        return db
    }

    private init(url: DatabaseURL, queue: JobQueue, admin: DatabaseURL, runner: Task<Void, Never>) {
        self.url = url
        self.queue = queue
        self.admin = admin
        self.runner = runner
    }

    /// The checkout's root (the built-in migration lines and definitions are compared with its files).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs raw SQL in the test database (to set up states the API would not create, like an expired lease).
    /// Every insert into `jobs` fails at its commit from now on (a deferred constraint trigger
    /// raises), after the statement itself has answered: as when the server stops between the
    /// two (docs/reliability.md, "A commit the caller can trust").
    public func failCommitsOfJobs() async throws {
        try await execute("""
            CREATE FUNCTION test_fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'commit refused by the test'; END $$
            """)
        try await execute("""
            CREATE CONSTRAINT TRIGGER test_fail_commit AFTER INSERT ON jobs
               DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_fail_commit()
            """)
    }

    public func execute(_ query: PostgresQuery) async throws {
        for try await _ in try await queue.client.query(query) {}
    }

    public func scalar<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as: T.Type) async throws -> T {
        for try await value in try await queue.client.query(query).decode(T.self) { return value }
        throw QueueError.jobNotFound("no row")
    }

    /// Drops the database with every connection to it: the database "stops" for its clients.
    public func dropNow() async throws {
        try await Self.adminExecute(admin, "DROP DATABASE IF EXISTS \(url.database) WITH (FORCE)")
    }

    public func drop() async {
        runner.cancel()
        _ = await runner.value
        try? await Self.adminExecute(admin, "DROP DATABASE IF EXISTS \(url.database) WITH (FORCE)")
    }

    public static func adminExecute(_ admin: DatabaseURL, _ sql: String) async throws {
        var logger = Logger(label: "test-admin")
        logger.logLevel = .error
        try await JobQueue.withQueue(url: admin, maxConnections: 1, logger: logger) { queue in
            for try await _ in try await queue.client.query(PostgresQuery(unsafeSQL: sql)) {}
        }
    }

    /// Polls `condition` until it holds or `timeout` passes (then fails the test with `message`).
    public func eventually(_ message: String, timeout: Duration = .seconds(60), every: Duration = .milliseconds(50),
                    _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: every)
        }
        XCTFail("timed out after \(timeout): \(message)")
        throw CancellationError()
    }
}
