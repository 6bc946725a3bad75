/// One component's schema: its numbered migrations (tables, indexes, data), versioned on their
/// own, and its definitions (functions and views, re-applied when their text changes). The queue
/// has a line (`QueueSchema.line`) that needs nothing but PostgreSQL; the apps have another; a
/// ``Migrator`` applies the lines it is given, in the order given, and records each line's
/// versions apart (`atelier_schema_migrations.line`), so a database may hold the queue's line alone.
public struct MigrationLine: Sendable, Equatable {
    /// The line's name in `atelier_schema_migrations` ("queue", "apps").
    public let name: String
    /// In version order, numbered 1, 2, 3 … without gaps.
    public let migrations: [Migration]
    public let definitions: [Definition]

    /// The version a database at the end of this line is at: the newest migration's.
    public var version: Int { migrations.last?.version ?? 0 }

    public init(name: String, migrations: [Migration], definitions: [Definition] = []) throws(ConfigurationError) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw ConfigurationError("a migration line's name is letters, digits and _, not \"\(name)\"")
        }
        guard !migrations.isEmpty else { throw ConfigurationError("the migration line \(name) has no migrations") }
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw ConfigurationError("the migrations of line \(name) must be numbered 1, 2, 3 … without gaps or duplicates; found version \(migration.version) at position \(offset + 1)")
        }
        self.name = name
        self.migrations = migrations
        self.definitions = definitions
    }

    /// The line a target carries in its embedded files (`EmbeddedAssets.files`): the
    /// `NNNN_name.sql` files directly in `Migrations/` and the definitions directly in `SQL/`.
    /// A build whose files break the rules fails its first use, at start-up, with the reason.
    package static func embedded(_ name: String, files: [(path: String, text: String)]) -> MigrationLine {
        do {
            let folder = "Migrations/"
            let migrations = try Migration.parse(
                files.filter { $0.path.hasPrefix(folder) && $0.path.hasSuffix(".sql") && !$0.path.dropFirst(folder.count).contains("/") }
                    .map { (String($0.path.dropFirst(folder.count)), $0.text) },
                from: "the \(name) line built in")
            return try MigrationLine(name: name, migrations: migrations, definitions: Definition.from(files: files, under: "SQL"))
        } catch {
            fatalError("the \(name) migration line built into this binary is malformed: \(error.message)")
        }
    }
}
