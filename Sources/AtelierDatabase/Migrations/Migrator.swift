import Logging
import PostgresNIO

/// Applies migration lines (``MigrationLine``), in the order given: each line's migrations in
/// version order, each in its own transaction, recorded in `atelier_schema_migrations` under the
/// line's name; then, in one transaction, every ``Definition`` (function or view) of every line
/// whose text changed since it was last applied, recorded in `atelier_schema_definitions`.
/// Re-running is a no-op; several migrators at once are serialised by an advisory lock; a
/// database further along a line than this build is refused. A database from before the lines
/// is adopted first (``SingleLineAdoption``).
public struct Migrator: Sendable {
    /// A running pool on the database to migrate.
    public let client: PostgresClient
    public let logger: Logger
    public let lines: [MigrationLine]

    /// A migrator of `lines` on `database` (its pool must be running); logs to `logger`, or the database's.
    public init(database: Database, logger: Logger? = nil, lines: [MigrationLine]) throws(ConfigurationError) {
        guard !lines.isEmpty else { throw ConfigurationError("no migration lines given") }
        var names: Set<String> = []
        var definitions: Set<String> = []
        for line in lines {
            guard names.insert(line.name).inserted else { throw ConfigurationError("the migration line \(line.name) is given twice") }
            for definition in line.definitions where !definitions.insert(definition.name).inserted {
                throw ConfigurationError("two migration lines define \(definition.name)")
            }
        }
        self.client = database.client
        self.logger = logger ?? database.logger
        self.lines = lines
    }

    /// One row of `atelier_schema_migrations`: a migration applied to the database.
    public struct Applied: Sendable, Equatable {
        public var line: String
        public var version: Int
        public var name: String
        public var checksum: String
    }

    public struct Report: Sendable {
        /// Migrations this run applied, in the order applied (empty when already up to date).
        public var applied: [Applied]
        /// Each given line's version after the run.
        public var versions: [String: Int]
        /// Applied migrations whose file changed since: a warning, not an error.
        public var editedAfterApply: [Applied]
        /// Definitions this run applied: new, or changed since they were last applied.
        public var definitionsApplied: [String]
        /// Whether this run adopted a database from before the migration lines.
        public var adoptedSingleLine: Bool
    }

    /// Brings the database to the end of every given line.
    @discardableResult
    public func migrate() async throws -> Report {
        let logger = self.logger
        let adopted = try await client.withTransaction(logger: logger) { connection -> Bool in
            try await Self.lock(connection, logger: logger)
            let adopted = try await SingleLineAdoption.adoptIfNeeded(connection, lines: lines, logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: Self.migrationsTable), logger: logger)
            return adopted
        }
        if adopted { logger.info("adopted a database from before the migration lines", metadata: ["lines": "queue, apps"]) }
        var appliedNow: [Applied] = []
        for line in lines {
            for migration in line.migrations {
                let didApply = try await client.withTransaction(logger: logger) { connection -> Bool in
                    try await Self.lock(connection, logger: logger)
                    let existing = try await Self.appliedRows(connection, logger: logger)
                    try Self.refuseNewer(existing, lines: [line])
                    if existing.contains(where: { $0.line == line.name && $0.version == migration.version }) { return false }
                    for statement in SQLScript.statements(in: migration.sql) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("""
                        INSERT INTO atelier_schema_migrations (line, version, name, checksum)
                        VALUES (\(line.name), \(migration.version), \(migration.name), \(migration.checksum))
                        """, logger: logger)
                    return true
                }
                if didApply {
                    appliedNow.append(Applied(line: line.name, version: migration.version, name: migration.name, checksum: migration.checksum))
                    logger.info("applied migration", metadata: ["line": "\(line.name)", "version": "\(migration.version)", "name": "\(migration.name)"])
                }
            }
        }
        let definitionsApplied = try await applyDefinitions()
        let applied = try await appliedMigrations()
        try Self.refuseNewer(applied, lines: lines)
        var versions: [String: Int] = [:]
        var edited: [Applied] = []
        for line in lines {
            let rows = applied.filter { $0.line == line.name }
            versions[line.name] = rows.map(\.version).max() ?? 0
            edited += rows.filter { row in line.migrations.first { $0.version == row.version }.map { $0.checksum != row.checksum } ?? false }
        }
        return Report(applied: appliedNow, versions: versions, editedAfterApply: edited,
                      definitionsApplied: definitionsApplied, adoptedSingleLine: adopted)
    }

    /// Applies, in one transaction, the definitions whose recorded checksum differs from this
    /// build's (or that are not recorded): all or none, so functions that call one another change
    /// together.
    private func applyDefinitions() async throws -> [String] {
        let logger = self.logger
        let lines = self.lines
        let definitions = lines.flatMap(\.definitions)
        let applied = try await client.withTransaction(logger: logger) { connection -> [String] in
            try await Self.lock(connection, logger: logger)
            try Self.refuseNewer(try await Self.appliedRows(connection, logger: logger), lines: lines)
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

    static let migrationsTable = """
        CREATE TABLE IF NOT EXISTS atelier_schema_migrations (
            line       text        NOT NULL,
            version    integer     NOT NULL,
            name       text        NOT NULL,
            checksum   text        NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (line, version)
        )
        """

    private static let definitionsTable = """
        CREATE TABLE IF NOT EXISTS atelier_schema_definitions (
            name       text        PRIMARY KEY,
            checksum   text        NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    /// Serialises migrators (and the adoption) until the transaction ends.
    private static func lock(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(\(Schema.lockNamespace), \(Schema.migrationLockKey))", logger: logger)
    }

    private static func recordedDefinitions(_ connection: PostgresConnection, logger: Logger) async throws -> [String: String] {
        let rows = try await connection.query("SELECT name, checksum FROM atelier_schema_definitions", logger: logger)
        var result: [String: String] = [:]
        for try await (name, checksum) in rows.decode((String, String).self) { result[name] = checksum }
        return result
    }

    /// Every recorded migration, of every line, by line and version.
    public func appliedMigrations() async throws -> [Applied] {
        let logger = self.logger
        return try await client.withConnection { try await Self.appliedRows($0, logger: logger) }
    }

    /// Fails unless the database is at exactly the end of each given line and has their
    /// definitions as this build has them: what `work` and `serve` check at start.
    public static func requireCurrent(database: Database, lines: [MigrationLine]) async throws {
        let (client, logger) = (database.client, database.logger)
        var versions: [String: Int] = [:]
        do {
            let rows = try await client.query(
                "SELECT line, max(version) FROM atelier_schema_migrations GROUP BY line", logger: logger)
            for try await (line, version) in rows.decode((String, Int).self) { versions[line] = version }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {   // undefined_table
            versions = [:]
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42703" {   // undefined_column: before the lines
            throw SchemaError("the database schema is from before the migration lines: run `atelier migrate`")
        }
        for line in lines {
            let current = versions[line.name] ?? 0
            if current < line.version {
                throw SchemaError("the database's \(line.name) schema is at version \(current) but this build needs version \(line.version): run `atelier migrate`")
            }
            if current > line.version { throw SchemaError(newerMessage(line, current)) }
        }
        var recorded: [String: String] = [:]
        do {
            recorded = try await client.withConnection { try await recordedDefinitions($0, logger: logger) }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {   // undefined_table
            recorded = [:]
        }
        let differing = lines.flatMap(\.definitions).filter { recorded[$0.name] != $0.checksum }.map(\.name)
        if !differing.isEmpty {
            throw SchemaError("the database's definition of \(differing.joined(separator: ", ")) is not this build's: run `atelier migrate` with this build")
        }
    }

    /// The recorded migrations; none when nothing was ever migrated (`--status` on a new database
    /// creates nothing). ``migrate()`` creates the table before its first read.
    private static func appliedRows(_ connection: PostgresConnection, logger: Logger) async throws -> [Applied] {
        do {
            let rows = try await connection.query(
                "SELECT line, version, name, checksum FROM atelier_schema_migrations ORDER BY line, version", logger: logger)
            var result: [Applied] = []
            for try await (line, version, name, checksum) in rows.decode((String, Int, String, String).self) {
                result.append(Applied(line: line, version: version, name: name, checksum: checksum))
            }
            return result
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42703" {   // undefined_column
            throw SchemaError("the database schema is from before the migration lines: run `atelier migrate`")
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {   // undefined_table
            return []
        }
    }

    private static func refuseNewer(_ applied: [Applied], lines: [MigrationLine]) throws(SchemaError) {
        for line in lines {
            if let newest = applied.filter({ $0.line == line.name }).map(\.version).max(), newest > line.version {
                throw SchemaError(newerMessage(line, newest))
            }
        }
    }

    private static func newerMessage(_ line: MigrationLine, _ version: Int) -> String {
        "the database's \(line.name) schema is at version \(version), newer than this build of atelier (which knows up to version \(line.version)): upgrade atelier, or point ATELIER_DATABASE_URL at another database"
    }
}
