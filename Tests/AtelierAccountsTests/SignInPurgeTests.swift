import AtelierAccounts
import AtelierTestSupport
import XCTest

/// The sign-in purge (`atelier work` runs it as a maintenance chore).
final class SignInPurgeTests: DatabaseTestCase {
    /// The purge removes what sign-ins kept only for a while: expired refresh tokens (spent
    /// ones stay until they expire, so a replay still ends its family), tokens revoked a day
    /// ago, spent identity tokens past their expiry.
    func testThePurgeRemovesExpiredAndLongRevokedSignIns() async throws {
        try await db.execute("INSERT INTO users (id, email, name) VALUES ('00000000-0000-4000-8000-000000000001', 'a@example.com', 'A')")
        try await db.execute("""
            INSERT INTO refresh_tokens (token_hash, user_id, family, expires_at, used_at, revoked_at) VALUES
              ('expired', '00000000-0000-4000-8000-000000000001', gen_random_uuid(), now() - interval '1 second', NULL, NULL),
              ('spent-live', '00000000-0000-4000-8000-000000000001', gen_random_uuid(), now() + interval '1 day', now(), NULL),
              ('revoked-long-ago', '00000000-0000-4000-8000-000000000001', gen_random_uuid(), now() + interval '1 day', NULL,
               now() - interval '2 days'),
              ('live', '00000000-0000-4000-8000-000000000001', gen_random_uuid(), now() + interval '1 day', NULL, NULL)
            """)
        try await db.execute("""
            INSERT INTO apple_identity_uses (token_hash, expires_at) VALUES ('old', now() - interval '1 second'), ('new', now() + interval '5 minutes')
            """)
        let removed = try await SignInPurge(database: db.queue.database, logger: db.queue.logger).run()
        XCTAssertEqual(removed, 3)
        let left = try await db.scalar("SELECT string_agg(token_hash, ',' ORDER BY token_hash) FROM refresh_tokens", as: String.self)
        XCTAssertEqual(left, "live,spent-live")
        let uses = try await db.scalar("SELECT string_agg(token_hash, ',') FROM apple_identity_uses", as: String.self)
        XCTAssertEqual(uses, "new")
    }
}
