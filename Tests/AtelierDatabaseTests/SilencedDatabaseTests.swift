import AtelierDatabase
import AtelierQueue
import AtelierTestSupport
import Logging
import PostgresNIO
import XCTest

/// The connection pool, configured as every Atelier process configures it
/// (``DatabaseURL/clientConfiguration(applicationName:)``), gets past a database that went
/// silent: a statement made while its connections are dead is answered — by an error, or by a
/// new connection — once the dead ones end, and never waits for good.
///
/// The database goes silent behind ``DatabaseSilencer`` (no root, no network namespace): what
/// the client sends is swallowed, until the relay resets the connections as the client's kernel
/// would (`TCP_USER_TIMEOUT`, set by ``DeadConnectionDetector``). `ops/cluster` makes the same
/// outage with real hosts.
final class SilencedDatabaseTests: XCTestCase {
    func testAStatementMadeWhileTheDatabaseIsSilentIsAnsweredOnceTheDeadConnectionEnds() async throws {
        let silencer = try DatabaseSilencer(try TestDatabase.adminURL())
        defer { silencer.stop() }
        var configuration = silencer.url.clientConfiguration(applicationName: "atelier-test")
        configuration.options.maximumConnections = 4
        // A pool keep-alive, if there is one, runs a second after the connection goes idle
        // instead of after its period, so that the statement below meets it.
        let keepsAlive = configuration.options.keepAliveBehavior != nil
        configuration.options.keepAliveBehavior?.frequency = .seconds(1)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await XCTAssertEqualAsync(try await Self.one(client), 1, "one connection, idle once this returns")
            silencer.silence()
            if keepsAlive {
                // The keep-alive's query went into the silence: the connection counts as soon
                // available, and the statement below waits for it instead of opening another.
                await silencer.waitForWriteIntoTheSilence()
            }
            let statement = Task { try await Self.one(client) }
            // The statement reaches the pool before the connection ends (without this pause the
            // test still passes with a fixed pool; it only proves less).
            try? await Task.sleep(for: .milliseconds(300))
            silencer.cut()

            let ended = try? await StatementDeadline(.seconds(30)).run("the statement made during the silence") {
                _ = try? await statement.value
                return true
            }
            XCTAssertEqual(ended, true, "the statement made during the silence still waits 30 s after the dead connection ended")
            // The pool may hand out the connection that just ended once more before it learns
            // that it ended: a statement on it fails at once, or (PostgresNIO 1.33, a write to a
            // channel already closed) is never answered — the worker bounds its statements for
            // that. The next one gets a new connection.
            var answer: Int?
            for _ in 1...5 where answer == nil {
                answer = try? await StatementDeadline(.seconds(10)).run("a statement after the silence") { try await Self.one(client) }
            }
            XCTAssertEqual(answer, 1, "the database answers again, on a new connection")
        }
    }

    private static func one(_ client: PostgresClient) async throws -> Int {
        for try await value in try await client.query("SELECT 1").decode(Int.self) { return value }
        return 0
    }
}
