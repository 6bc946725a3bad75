import AtelierDatabase
import Foundation
import Logging
import AtelierLanes
import PostgresNIO

/// Users in PostgreSQL (`users`). Emails are unique without regard to case and
/// kept as given; lookups lowercase both sides.
package struct UserStore: Sendable {
    package let client: PostgresClient
    let logger: Logger
    let hasher: PasswordHasher
    /// Where scrypt runs (32 MiB each, and the CPU of docs/benchmarks/accounts.md): a bounded lane
    /// of its own, never the cooperative pool every other request's tasks run on. The API passes
    /// its `passwords` lane; tools and tests get one of their own.
    let passwords: WorkLane

    package init(database: Database, hasher: PasswordHasher = PasswordHasher(), logger: Logger,
                passwords: WorkLane = WorkLane(name: "password checks", concurrency: 2, queueLimit: 64)) {
        (self.client, self.hasher, self.logger, self.passwords) = (database.client, hasher, logger, passwords)
    }

    /// Makes a user. `password` nil: the user cannot sign in with a password (Apple only, or
    /// until an operator sets one).
    package func create(email: String?, name: String = "", role: String = "user", permissions: [String] = [],
                       password: String? = nil, appleSubject: String? = nil) async throws -> User {
        let email = try email.map(Self.normalized(email:))
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= 200 else { throw AccountError.invalidArgument("a name may have at most 200 characters") }
        try Self.validate(role: role)
        for permission in permissions { try Self.validate(permission: permission) }
        let hasher = self.hasher
        var hash: String?
        if let password {
            try PasswordHasher.validate(password)
            hash = try await passwords.run { try hasher.hash(password) }
        }
        let id = UUID()
        do {
            let rows = try await client.query("""
                INSERT INTO users (id, email, name, role, permissions, apple_sub, password_hash)
                VALUES (\(id), \(email), \(name), \(role), \(permissions), \(appleSubject), \(hash))
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            for try await row in rows { return try Self.user(row) }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            let constraint = error.serverInfo?[.constraintName] ?? ""
            throw AccountError.conflict(constraint.contains("apple")
                ? "that Apple account already has a user" : "a user with the email '\(email ?? "")' already exists")
        }
        throw AccountError.notFound("the new user was not returned")
    }

    package func find(id: UUID) async throws -> User? {
        try await first("SELECT \(Self.columns) FROM users WHERE id = $1", id)
    }

    package func find(email: String) async throws -> User? {
        guard let email = try? Self.normalized(email: email) else { return nil }
        return try await first("SELECT \(Self.columns) FROM users WHERE lower(email) = lower($1)", email)
    }

    package func find(appleSubject: String) async throws -> User? {
        try await first("SELECT \(Self.columns) FROM users WHERE apple_sub = $1", appleSubject)
    }

    /// The user whose email and password these are, or ``AccountError/invalidCredentials`` —
    /// the same error, after the same work, for an unknown email, a wrong password, a user
    /// without a password and a disabled user.
    package func authenticate(email: String, password: String) async throws -> User {
        let row = try await passwordRow(email: email)
        let (hasher, hash) = (self.hasher, row?.hash)
        let matches = try await passwords.run { hasher.verify(password, against: hash) }
        guard matches, let user = row?.user, user.disabledAt == nil else { throw AccountError.invalidCredentials }
        return user
    }

    /// The user of an Apple identity, made on its first sign-in. A user with the same email who
    /// has no Apple account yet is linked to it only when Apple vouches for the email
    /// (`email_verified`) and the user is no operator (`admin`): an Apple account is never a
    /// second, unthrottled road to the operator routes. Otherwise the new user keeps no email
    /// rather than take another's. A disabled user → ``AccountError/invalidToken(_:)``.
    package func signIn(apple identity: AppleSignIn.Identity) async throws -> User {
        if let user = try await find(appleSubject: identity.subject) { return try Self.enabled(user) }
        if let email = identity.email, identity.emailVerified, let existing = try await find(email: email),
           existing.appleSubject == nil, !existing.isAdmin {
            _ = try await client.query("""
                UPDATE users SET apple_sub = \(identity.subject), updated_at = now() WHERE id = \(existing.id) AND apple_sub IS NULL AND role <> 'admin'
                """, logger: logger)
            if let linked = try await find(appleSubject: identity.subject) { return try Self.enabled(linked) }
        }
        let email = try await identity.email.asyncFilter { try await find(email: $0) == nil }
        do {
            return try await create(email: email, appleSubject: identity.subject)
        } catch AccountError.conflict {
            // A concurrent first sign-in of the same Apple account made the user.
            guard let user = try await find(appleSubject: identity.subject) else { throw AccountError.conflict("sign in again") }
            return try Self.enabled(user)
        }
    }

    private static func enabled(_ user: User) throws(AccountError) -> User {
        guard user.disabledAt == nil else { throw .invalidToken("This account is disabled") }
        return user
    }

    package func list() async throws -> [User] {
        var users: [User] = []
        for try await row in try await client.query(PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM users ORDER BY created_at, id"),
                                                    logger: logger) {
            users.append(try Self.user(row))
        }
        return users
    }

    /// Disables a user: no new sign-in or refresh, and (through the notification the change
    /// raises) every API process stops accepting the user's access tokens at once.
    @discardableResult
    package func disable(email: String) async throws -> User {
        guard let user = try await find(email: email) else { throw AccountError.notFound("no user has the email '\(email)'") }
        _ = try await client.query("UPDATE users SET disabled_at = coalesce(disabled_at, now()), updated_at = now() WHERE id = \(user.id)",
                                   logger: logger)
        return try await find(id: user.id) ?? user
    }

    /// Ids of disabled users: what API processes refuse tokens of.
    package func disabledIDs() async throws -> Set<UUID> {
        var ids = Set<UUID>()
        for try await id in try await client.query("SELECT id FROM users WHERE disabled_at IS NOT NULL", logger: logger).decode(UUID.self) {
            ids.insert(id)
        }
        return ids
    }

    // MARK: Checks

    /// Trimmed and NFC (``EmailKey/trimmed(_:)``), at most 254 characters, one `@` with
    /// something on both sides and a dot after it.
    static func normalized(email: String) throws(AccountError) -> String {
        let email = EmailKey.trimmed(email)
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !email.contains(where: \.isWhitespace) else {
            throw .invalidArgument("'\(email.prefix(80))' is not an email address")
        }
        return email
    }

    static func validate(role: String) throws(AccountError) {
        guard role.range(of: #"^[a-z][a-z0-9_.-]{0,31}$"#, options: .regularExpression) != nil else {
            throw .invalidArgument("a role is 1–32 lowercase letters, digits, '_', '-' or '.', starting with a letter; got '\(role.prefix(40))'")
        }
    }

    static func validate(permission: String) throws(AccountError) {
        guard permission.range(of: #"^[A-Za-z0-9_.:*-]{1,64}$"#, options: .regularExpression) != nil else {
            throw .invalidArgument("a permission is 1–64 letters, digits, '_', '.', ':', '*' or '-'; got '\(permission.prefix(70))'")
        }
    }

    // MARK: Rows

    static let columns = "id, email, name, role, permissions, apple_sub, password_hash IS NOT NULL, disabled_at, created_at"

    static func user(_ row: PostgresRow) throws -> User {
        let (id, email, name, role, permissions, apple, hasPassword, disabledAt, createdAt) =
            try row.decode((UUID, String?, String, String, [String], String?, Bool, Date?, Date).self)
        return User(id: id, email: email, name: name, role: role, permissions: permissions, appleSubject: apple,
                    hasPassword: hasPassword, disabledAt: disabledAt, createdAt: createdAt)
    }

    private func first(_ sql: String, _ value: some PostgresEncodable & Sendable) async throws -> User? {
        var bindings = PostgresBindings()
        try bindings.append(value)
        for try await row in try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) {
            return try Self.user(row)
        }
        return nil
    }

    private func passwordRow(email: String) async throws -> (user: User, hash: String?)? {
        guard let email = try? Self.normalized(email: email) else { return nil }
        let rows = try await client.query("""
            SELECT \(unescaped: Self.columns), password_hash FROM users WHERE lower(email) = lower(\(email))
            """, logger: logger)
        for try await row in rows {
            return (try Self.user(row), try row.makeRandomAccess()["password_hash"].decode(String?.self))
        }
        return nil
    }
}

private extension Optional where Wrapped == String {
    /// The value when `keep` says so, else nil.
    func asyncFilter(_ keep: (String) async throws -> Bool) async rethrows -> String? {
        guard let value = self else { return nil }
        return try await keep(value) ? value : nil
    }
}
