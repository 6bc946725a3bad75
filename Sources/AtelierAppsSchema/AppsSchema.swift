import AtelierDatabase

/// The apps' schema, a migration line of its own beside the queue's: users and their refresh
/// and revoked tokens, Sign in with Apple's used identity tokens, app tokens, documents and the
/// Learn Assistant's reviews, indexed items with their embeddings (the one that needs pgvector).
/// Numbered migrations in `Sources/AtelierAppsSchema/Migrations/`; no definitions yet.
package enum AppsSchema {
    /// The apps' line as built into this binary ("apps").
    package static let line = MigrationLine.embedded("apps", files: EmbeddedAssets.files)
}
