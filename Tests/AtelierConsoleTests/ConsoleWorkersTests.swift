import AtelierDatabase
import Foundation
import XCTest

/// The workers page says in words which worker is live, stuck (its process holds its liveness
/// lock but sent no heartbeat for 30 s) or gone (no lock: its process stopped).
final class ConsoleWorkersTests: ConsoleTestCase {
    override var runsWorker: Bool { false }

    func testStuckAndGoneWorkersAreNamed() async throws {
        try await makeUser(email: "ops@example.com", role: "admin")
        let cookie = try await signIn(email: "ops@example.com")
        // Two registry rows as a worker writes them, both silent for ten minutes; one's liveness
        // lock is held (by a connection of the test's pool, as a hung process would hold it).
        try await db.execute("""
            INSERT INTO workers (id, host, pid, queues, kinds, concurrency, version, started_at, heartbeat_at, lock_key) OVERRIDING SYSTEM VALUE
            VALUES ('host-a/101/hung', 'host-a', 101, '{default}', '{stylize}', 4, 'test', now() - interval '1 hour', now() - interval '10 minutes', 90001),
                   ('host-b/202/dead', 'host-b', 202, '{default}', '{caption}', 4, 'test', now() - interval '1 hour', now() - interval '10 minutes', 90002)
            """)
        try await db.execute("SELECT pg_advisory_lock(\(Schema.lockNamespace), 90001)")
        let page = try await get("/admin/workers", cookie: cookie)
        XCTAssertEqual(page.status, 200)
        let hung = try XCTUnwrap(page.text.range(of: "host-a/101/hung").map { String(page.text[$0.upperBound...].prefix(200)) })
        XCTAssertTrue(hung.contains(">stuck<"), hung)
        let dead = try XCTUnwrap(page.text.range(of: "host-b/202/dead").map { String(page.text[$0.upperBound...].prefix(200)) })
        XCTAssertTrue(dead.contains(">gone<"), dead)
    }
}
