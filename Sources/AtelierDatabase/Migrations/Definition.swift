import AtelierHashing

/// One function or view, defined once, in one `.sql` file (`CREATE OR REPLACE …`): the current
/// text, not a history. Unlike a ``Migration`` it is not numbered: after the migrations, the
/// ``Migrator`` applies each definition whose text changed since it last applied it, so changing
/// the claim is a diff of one file. Tables, indexes and data stay in migrations; a trigger
/// function's file also attaches it (`CREATE OR REPLACE TRIGGER`).
///
/// A definition must be safe to run again on a database that has it: `CREATE OR REPLACE`, and a
/// change of arguments or result type starts with `DROP FUNCTION IF EXISTS` of the old signature.
/// Its statements run with `check_function_bodies` off, as a restore does, so definitions that
/// call one another apply in any order.
public struct Definition: Sendable, Equatable {
    /// The file's name without `.sql`: the function or view it defines (`atelier_claim`).
    public var name: String
    public var sql: String
    /// FNV-1a of the text: a changed definition is applied again.
    public var checksum: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
        self.checksum = String(FNV1a.hash(sql.utf8), radix: 16)
    }

    /// The definitions among a target's embedded files (`EmbeddedAssets.files`): the `.sql`
    /// files directly in `folder` (not in a folder below it), named after their file, in path order.
    package static func from(files: [(path: String, text: String)], under folder: String) -> [Definition] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return files
            .filter { $0.path.hasPrefix(prefix) && $0.path.hasSuffix(".sql") && !$0.path.dropFirst(prefix.count).contains("/") }
            .sorted { $0.path < $1.path }
            .map { Definition(name: String($0.path.dropFirst(prefix.count).dropLast(4)), sql: $0.text) }
    }
}
