import AtelierHashing
import Foundation

/// One numbered file of `Migrations/`: `0001_queue.sql` is version 1, named "queue".
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String
    /// FNV-1a of the file's bytes: tells an edited, already-applied migration apart.
    public var checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = String(FNV1a.hash(sql.utf8), radix: 16)
    }

    /// The migrations built into this binary: `Migrations/*.sql` of the checkout it was built
    /// from, embedded by the EmbedMigrations build plugin (``files``), in version order.
    public static func builtIn() throws(ConfigurationError) -> [Migration] {
        try parse(files, from: "this build")
    }

    /// Reads every `NNNN_name.sql` in `directory` (`atelier migrate --dir`, and the tests that
    /// compare the checkout's files with what was built in).
    public static func load(from directory: URL) throws(ConfigurationError) -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw ConfigurationError("cannot read migrations from \(directory.path)")
        }
        var files: [(name: String, text: String)] = []
        for file in names where file.hasSuffix(".sql") {
            do {
                files.append((file, try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)))
            } catch {
                throw ConfigurationError("cannot read migration \(file): \(error)")
            }
        }
        return try parse(files, from: directory.path)
    }

    /// `NNNN_name.sql` files → migrations in version order; versions must run 1, 2, 3 … without gaps.
    static func parse(_ files: [(name: String, text: String)], from origin: String) throws(ConfigurationError) -> [Migration] {
        var migrations: [Migration] = []
        for (file, sql) in files {
            guard let version = version(ofFile: file), let underscore = file.firstIndex(of: "_") else {
                throw ConfigurationError("migration file \(file) must be named NNNN_name.sql")
            }
            migrations.append(Migration(version: version, name: String(file.dropLast(4)[file.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw ConfigurationError("migrations must be numbered 1, 2, 3 … without gaps or duplicates; found version \(migration.version) at position \(offset + 1) in \(origin)")
        }
        return migrations
    }

    /// 12 for `0012_name.sql`; nil for a name not of that shape.
    static func version(ofFile file: String) -> Int? {
        guard file.hasSuffix(".sql"), let underscore = file.firstIndex(of: "_"),
              let version = Int(file[..<underscore]), version > 0 else { return nil }
        return version
    }
}
