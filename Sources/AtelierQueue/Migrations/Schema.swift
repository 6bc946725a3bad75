/// The schema version this build of Atelier was written against: the highest migration it knows.
/// Raise it in the same commit that adds `Migrations/NNNN_….sql`.
public enum Schema {
    public static let version = 8

    /// Advisory-lock namespace (classid) for every lock Atelier takes: "ATLR".
    public static let lockNamespace: Int32 = 0x4154_4C52
    /// Key within the namespace that serialises migrations.
    static let migrationLockKey: Int32 = -1
}
