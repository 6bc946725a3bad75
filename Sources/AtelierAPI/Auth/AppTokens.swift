import AtelierDatabase
import AtelierQueue
import AtelierStorage
import Crypto
import Foundation
import PostgresNIO

/// A token as operators see it (never the token itself: only its first characters).
package struct AppToken: Sendable, Equatable {
    package var id: UUID
    package var name: String
    package var owner: String
    package var prefix: String
    package var createdAt: Date
    package var lastUsedAt: Date?
    package var revokedAt: Date?
}

/// A newly created token: the only moment its secret value exists outside the client.
package struct CreatedToken: Sendable {
    package var token: AppToken
    package var secret: String
}

/// App tokens in PostgreSQL (`app_tokens`), stored as SHA-256 hashes.
/// Tokens are 32 random bytes, so a fast hash is enough: there is nothing to brute-force.
package struct AppTokens: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The tokens in `database` (the pool the process shares).
    package init(database: Database, logger: Logger? = nil) {
        self.client = database.client
        self.logger = logger ?? database.logger
    }

    package static let secretPrefix = "atl_"

    /// Creates a token for `owner` (default: the token's name). Names of live tokens are unique.
    package func create(name: String, owner: String? = nil) async throws -> CreatedToken {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 100 else { throw QueueError.invalidArgument("token name must be 1–100 characters") }
        let owner = owner ?? name
        guard !owner.isEmpty, owner.count <= 200 else { throw QueueError.invalidArgument("owner must be 1–200 characters") }
        var random = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) })
        let secret = Self.secretPrefix + Base64URL.encode(bytes)
        let id = JobID.make()
        let prefix = String(secret.prefix(10))
        do {
            let rows = try await client.query("""
                INSERT INTO app_tokens (id, name, owner, token_hash, prefix)
                VALUES (\(id), \(name), \(owner), \(Self.hash(secret)), \(prefix))
                RETURNING created_at
                """, logger: logger)
            var createdAt = Date()
            for try await date in rows.decode(Date.self) { createdAt = date }
            return CreatedToken(token: AppToken(id: id, name: name, owner: owner, prefix: prefix, createdAt: createdAt),
                                secret: secret)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw QueueError.conflict("a live token named '\(name)' already exists; revoke it or pick another name")
        }
    }

    /// Every token, newest first; revoked ones only with `includeRevoked`.
    package func list(includeRevoked: Bool = false) async throws -> [AppToken] {
        let rows = try await client.query("""
            SELECT id, name, owner, prefix, created_at, last_used_at, revoked_at FROM app_tokens
             WHERE \(includeRevoked) OR revoked_at IS NULL ORDER BY created_at DESC
            """, logger: logger)
        return try await Self.decode(rows)
    }

    /// Revokes the live token with this id or name. API processes drop it from their caches at
    /// once (the table's trigger notifies `atelier_tokens`).
    package func revoke(_ idOrName: String) async throws -> AppToken {
        let id = UUID(uuidString: idOrName)
        let rows = try await client.query("""
            UPDATE app_tokens SET revoked_at = now()
             WHERE revoked_at IS NULL AND (id = \(id) OR (\(id)::uuid IS NULL AND name = \(idOrName)))
            RETURNING id, name, owner, prefix, created_at, last_used_at, revoked_at
            """, logger: logger)
        if let token = try await Self.decode(rows).first { return token }
        throw QueueError.jobNotFound("no live token with id or name '\(idOrName)'")
    }

    /// The live token whose secret this is; nil for anything else. Its use is recorded in
    /// `last_used_at` at most once a minute (a read otherwise: busy tokens cost no writes).
    package func authenticate(_ secret: String) async throws -> AppToken? {
        guard secret.hasPrefix(Self.secretPrefix), secret.utf8.count < 200 else { return nil }
        let rows = try await client.query("""
            WITH live AS (
                SELECT id, name, owner, prefix, created_at, last_used_at, revoked_at FROM app_tokens
                 WHERE token_hash = \(Self.hash(secret)) AND revoked_at IS NULL
            ), used AS (
                UPDATE app_tokens t SET last_used_at = now() FROM live
                 WHERE t.id = live.id AND (live.last_used_at IS NULL OR live.last_used_at < now() - interval '1 minute')
                RETURNING t.last_used_at
            )
            SELECT id, name, owner, prefix, created_at, coalesce((SELECT last_used_at FROM used), last_used_at), revoked_at
              FROM live
            """, logger: logger)
        return try await Self.decode(rows).first
    }

    /// Which of these token hashes belong to live tokens.
    func liveHashes(among hashes: Set<String>) async throws -> Set<String> {
        let rows = try await client.query("""
            SELECT token_hash FROM app_tokens WHERE token_hash = ANY(\(Array(hashes))::text[]) AND revoked_at IS NULL
            """, logger: logger)
        var live: Set<String> = []
        for try await hash in rows.decode(String.self) { live.insert(hash) }
        return live
    }

    /// Rows of `id, name, owner, prefix, created_at, last_used_at, revoked_at`.
    private static func decode(_ rows: PostgresRowSequence) async throws -> [AppToken] {
        var tokens: [AppToken] = []
        for try await (id, name, owner, prefix, created, used, revoked) in rows.decode((UUID, String, String, String, Date, Date?, Date?).self) {
            tokens.append(AppToken(id: id, name: name, owner: owner, prefix: prefix, createdAt: created,
                                   lastUsedAt: used, revokedAt: revoked))
        }
        return tokens
    }

    /// Hex SHA-256 of a token: what the table stores and the cache is keyed by.
    static func hash(_ secret: String) -> String {
        HeaderText.hex(SHA256.hash(data: Array(secret.utf8)))
    }
}
