import AtelierHashing
import Foundation

/// One numbered file of a line's `Migrations/` folder: `0001_queue.sql` is version 1, named
/// "queue". Never edited once applied: a change is the next number.
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

    /// Reads every `NNNN_name.sql` in `directory`, in version order (the tests compare the
    /// checkout's files with what was built in).
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

    /// `NNNN_name.sql` files → migrations in version order (``MigrationLine`` checks that they run
    /// 1, 2, 3 … without gaps).
    package static func parse(_ files: [(name: String, text: String)], from origin: String) throws(ConfigurationError) -> [Migration] {
        var migrations: [Migration] = []
        for (file, sql) in files {
            guard let version = version(ofFile: file), let underscore = file.firstIndex(of: "_") else {
                throw ConfigurationError("migration file \(file) (\(origin)) must be named NNNN_name.sql")
            }
            migrations.append(Migration(version: version, name: String(file.dropLast(4)[file.index(after: underscore)...]), sql: sql))
        }
        return migrations.sorted { $0.version < $1.version }
    }

    /// 12 for `0012_name.sql`; nil for a name not of that shape.
    static func version(ofFile file: String) -> Int? {
        guard file.hasSuffix(".sql"), let underscore = file.firstIndex(of: "_"),
              let version = Int(file[..<underscore]), version > 0 else { return nil }
        return version
    }
}
