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
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        self.checksum = String(hash, radix: 16)
    }

    /// Reads every `NNNN_name.sql` in `directory`, in version order. Versions must run 1, 2, 3 … without gaps.
    public static func load(from directory: URL) throws(QueueError) -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .configuration("cannot read migrations from \(directory.path): set ATELIER_MIGRATIONS_DIR to the Migrations/ directory")
        }
        var migrations: [Migration] = []
        for file in names where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]), version > 0 else {
                throw .configuration("migration file \(file) must be named NNNN_name.sql")
            }
            let sql: String
            do {
                sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            } catch {
                throw .configuration("cannot read migration \(file): \(error)")
            }
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw .configuration("migrations must be numbered 1, 2, 3 … without gaps or duplicates; found version \(migration.version) at position \(offset + 1) in \(directory.path)")
        }
        return migrations
    }

    /// Where the migrations are: `ATELIER_MIGRATIONS_DIR`, else `Migrations/` in the working
    /// directory, else next to a checkout's `.build/<config>/atelier`, else the Docker image's path.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dir = environment["ATELIER_MIGRATIONS_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        let fm = FileManager.default
        var candidates = [URL(fileURLWithPath: fm.currentDirectoryPath).appendingPathComponent("Migrations")]
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var dir = executable.deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(dir.appendingPathComponent("Migrations"))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: "/app/Migrations"))
        return candidates.first { fm.fileExists(atPath: $0.path) } ?? candidates[0]
    }
}
