import AtelierDatabase

/// The queue's schema, a migration line of its own that needs nothing but PostgreSQL: its tables
/// and indexes as numbered migrations in `Sources/AtelierQueue/Migrations/`, and its functions and
/// views, one `.sql` file each in `Sources/AtelierQueue/SQL/`, named after what it defines
/// (`atelier_claim.sql`), re-applied by ``Migrator`` whenever one changed. To change the claim,
/// edit its file; to change a table, add the next migration. An application that embeds the queue
/// migrates with `Migrator(database:lines: [QueueSchema.line] + its own lines)`.
public enum QueueSchema {
    /// The queue's line as built into this binary ("queue").
    public static let line = MigrationLine.embedded("queue", files: EmbeddedAssets.files)
    /// Its definitions, in file-name order.
    public static var definitions: [Definition] { line.definitions }
}
