import Logging
import PostgresNIO

/// Applies the migrations (those built in: `Migrations/*.sql`) in order, each in its own transaction, recorded in
/// `atelier_schema_migrations`; then, in one transaction, every ``Definition`` (function or view)
/// whose text changed since it was last applied, recorded in `atelier_schema_definitions`.
/// Re-running is a no-op; several migrators at once are serialised by an advisory lock; a
/// database newer than this build is refused.
public struct Migrator: Sendable {
    /// A running pool on the database to migrate (the queue's `client`).
    public let client: PostgresClient
    public let logger: Logger
    public let migrations: [Migration]
    public let definitions: [Definition]

    public init(client: PostgresClient, logger: Logger, migrations: [Migration], definitions: [Definition]) throws(ConfigurationError) {
        guard let newest = migrations.last?.version else {
            throw ConfigurationError("no migrations given")
        }
        guard newest == Schema.version else {
            throw ConfigurationError("the migrations go up to version \(newest) but this build of atelier expects version \(Schema.version): the directory and the binary come from different releases")
        }
        self.client = client
        self.logger = logger
        self.migrations = migrations
        self.definitions = definitions
    }

    public struct Applied: Sendable, Equatable {
        public var version: Int
        public var name: String
        public var checksum: String
    }

    public struct Report: Sendable {
        /// Versions this run applied (empty when already up to date).
        public var applied: [Int]
        public var currentVersion: Int
        /// Applied migrations whose file changed since: a warning, not an error.
        public var editedAfterApply: [Int]
        /// Definitions this run applied: new, or changed since they were last applied.
        public var definitionsApplied: [String]
    }

    /// Brings the database to ``Schema/version``.
    @discardableResult
    public func migrate() async throws -> Report {
        let logger = self.logger
        for try await _ in try await client.query("""
            CREATE TABLE IF NOT EXISTS atelier_schema_migrations (
                version    integer     PRIMARY KEY,
                name       text        NOT NULL,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger) {}
        var appliedNow: [Int] = []
        for migration in migrations {
            let didApply = try await client.withTransaction(logger: logger) { connection -> Bool in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(Schema.lockNamespace), \(Schema.migrationLockKey))", logger: logger)
                let existing = try await Self.appliedVersions(connection, logger: logger)
                try Self.refuseNewer(existing)
                if existing.contains(where: { $0.version == migration.version }) { return false }
                for statement in SQLScript.statements(in: migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO atelier_schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                    """, logger: logger)
                return true
            }
            if didApply {
                appliedNow.append(migration.version)
                logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
        let definitionsApplied = try await applyDefinitions()
        let applied = try await appliedMigrations()
        try Self.refuseNewer(applied)
        let edited = applied.filter { row in
            migrations.first { $0.version == row.version }.map { $0.checksum != row.checksum } ?? false
        }.map(\.version)
        return Report(applied: appliedNow, currentVersion: applied.last?.version ?? 0, editedAfterApply: edited,
                      definitionsApplied: definitionsApplied)
    }

    /// Applies, in one transaction, the definitions whose recorded checksum differs from this
    /// build's (or that are not recorded): all or none, so functions that call one another change
    /// together.
    private func applyDefinitions() async throws -> [String] {
        let logger = self.logger
        let definitions = self.definitions
        let applied = try await client.withTransaction(logger: logger) { connection -> [String] in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(Schema.lockNamespace), \(Schema.migrationLockKey))", logger: logger)
            try Self.refuseNewer(try await Self.appliedVersions(connection, logger: logger))
            try await connection.query(PostgresQuery(unsafeSQL: Self.definitionsTable), logger: logger)
            let recorded = try await Self.recordedDefinitions(connection, logger: logger)
            let changed = definitions.filter { recorded[$0.name] != $0.checksum }
            if changed.isEmpty { return [] }
            try await connection.query("SET LOCAL check_function_bodies = off", logger: logger)
            for definition in changed {
                for statement in SQLScript.statements(in: definition.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO atelier_schema_definitions (name, checksum) VALUES (\(definition.name), \(definition.checksum))
                    ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now()
                    """, logger: logger)
            }
            return changed.map(\.name)
        }
        for name in applied { logger.info("applied definition", metadata: ["name": "\(name)"]) }
        return applied
    }

    private static let definitionsTable = """
        CREATE TABLE IF NOT EXISTS atelier_schema_definitions (
            name       text        PRIMARY KEY,
            checksum   text        NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    private static func recordedDefinitions(_ connection: PostgresConnection, logger: Logger) async throws -> [String: String] {
        let rows = try await connection.query("SELECT name, checksum FROM atelier_schema_definitions", logger: logger)
        var result: [String: String] = [:]
        for try await (name, checksum) in rows.decode((String, String).self) { result[name] = checksum }
        return result
    }

    public func appliedMigrations() async throws -> [Applied] {
        let logger = self.logger
        return try await client.withConnection { try await Self.appliedVersions($0, logger: logger) }
    }

    /// Fails unless the database is at exactly ``Schema/version`` and has these definitions as
    /// this build has them: what `work` and `serve` check at start.
    public static func requireCurrent(client: PostgresClient, logger: Logger, definitions: [Definition]) async throws {
        var version: Int?
        do {
            let rows = try await client.query("SELECT max(version) FROM atelier_schema_migrations", logger: logger)
            for try await value in rows.decode(Int?.self) { version = value }   // one row: an aggregate
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {   // undefined_table
            version = nil
        }
        let current = version ?? 0
        if current < Schema.version {
            throw SchemaError("the database schema is at version \(current) but this build needs version \(Schema.version): run `atelier migrate`")
        }
        if current > Schema.version {
            throw SchemaError(newerMessage(current))
        }
        var recorded: [String: String] = [:]
        do {
            recorded = try await client.withConnection { try await recordedDefinitions($0, logger: logger) }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {   // undefined_table
            recorded = [:]
        }
        let differing = definitions.filter { recorded[$0.name] != $0.checksum }.map(\.name)
        if !differing.isEmpty {
            throw SchemaError("the database's definition of \(differing.joined(separator: ", ")) is not this build's: run `atelier migrate` with this build")
        }
    }

    private static func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> [Applied] {
        let rows = try await connection.query(
            "SELECT version, name, checksum FROM atelier_schema_migrations ORDER BY version", logger: logger)
        var result: [Applied] = []
        for try await (version, name, checksum) in rows.decode((Int, String, String).self) {
            result.append(Applied(version: version, name: name, checksum: checksum))
        }
        return result
    }

    private static func refuseNewer(_ applied: [Applied]) throws(SchemaError) {
        if let newest = applied.last?.version, newest > Schema.version {
            throw SchemaError(newerMessage(newest))
        }
    }

    private static func newerMessage(_ version: Int) -> String {
        "the database schema is at version \(version), newer than this build of atelier (which knows up to version \(Schema.version)): upgrade atelier, or point ATELIER_DATABASE_URL at another database"
    }
}
