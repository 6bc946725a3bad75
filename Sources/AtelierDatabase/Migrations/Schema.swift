/// The schema version this build of Atelier was written against: the highest migration built
/// into it (``Migration/builtIn()``), so adding `Migrations/NNNN_….sql` raises it.
public enum Schema {
    public static let version = Migration.files.compactMap { Migration.version(ofFile: $0.name) }.max() ?? 0

    /// Advisory-lock namespace (classid) for every lock Atelier takes: "ATLR".
    public static let lockNamespace: Int32 = 0x4154_4C52
    /// Key within the namespace that serialises migrations.
    static let migrationLockKey: Int32 = -1
}
