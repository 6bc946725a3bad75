import AtelierDatabase

/// The queue's functions and views, one `.sql` file each in `Sources/AtelierQueue/SQL/`, named
/// after what it defines (`atelier_claim.sql`): what `Migrator` applies after the migrations
/// whenever one changed. To change the claim, edit its file; tables and indexes still change by
/// a new migration in `Migrations/`.
public enum QueueSchema {
    /// Every definition built into this binary, in file-name order.
    public static let definitions: [Definition] = Definition.from(files: EmbeddedAssets.files, under: "SQL")
}
