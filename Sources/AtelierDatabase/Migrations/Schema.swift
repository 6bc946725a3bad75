/// The advisory locks Atelier takes, in one namespace so they cannot collide with an
/// application's own.
public enum Schema {
    /// Advisory-lock namespace (classid) for every lock Atelier takes: "ATLR".
    public static let lockNamespace: Int32 = 0x4154_4C52
    /// Key within the namespace that serialises migrations.
    static let migrationLockKey: Int32 = -1
}
