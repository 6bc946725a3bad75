import Logging
import PostgresNIO

/// Databases migrated before the queue and the apps had migration lines of their own recorded
/// one line of 33 versions in `atelier_schema_migrations (version, name, checksum)`. Version 33
/// of that line is exactly version 1 of both lines ("queue" and "apps" start from the schema it
/// left; `AtelierDatabaseTests.SingleLineAdoptionTests` proves the two identical), so adopting
/// such a database rewrites its record, in the migrator's transaction, to say so, and applies
/// nothing. A database at an older version is refused: bring it to 33 first with a build from
/// before the lines (commit 908ca42 or earlier), whose migrations it needs.
enum SingleLineAdoption {
    /// The last version of the single line.
    static let finalVersion = 33
    /// The lines that version 33 of the single line is version 1 of.
    static let lineNames = ["queue", "apps"]

    /// Adopts the database if its record is of the single line; says whether it did.
    static func adoptIfNeeded(_ connection: PostgresConnection, lines: [MigrationLine], logger: Logger) async throws -> Bool {
        var singleLine = false
        for try await found in try await connection.query("""
            SELECT to_regclass('atelier_schema_migrations') IS NOT NULL
               AND NOT EXISTS (SELECT FROM pg_attribute
                                WHERE attrelid = to_regclass('atelier_schema_migrations') AND attname = 'line' AND NOT attisdropped)
            """, logger: logger).decode(Bool.self) { singleLine = found }
        guard singleLine else { return false }
        var recorded: Int?
        for try await version in try await connection.query(
            "SELECT max(version) FROM atelier_schema_migrations", logger: logger).decode(Int?.self) { recorded = version }
        guard let version = recorded, version == finalVersion else {
            throw SchemaError("the database was migrated before the queue and the apps had migration lines of their own and is at version \(recorded ?? 0) of \(finalVersion): run `atelier migrate` of a build from before the lines (commit 908ca42 or earlier) first, then this build's")
        }
        try await connection.query("DROP TABLE atelier_schema_migrations", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: Migrator.migrationsTable), logger: logger)
        for name in lineNames {
            let first = lines.first { $0.name == name }?.migrations.first
            try await connection.query("""
                INSERT INTO atelier_schema_migrations (line, version, name, checksum)
                VALUES (\(name), 1, \(first?.name ?? name), \(first?.checksum ?? "single line \(finalVersion)"))
                """, logger: logger)
        }
        return true
    }
}
