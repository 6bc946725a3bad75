import ArgumentParser
import AtelierDatabase
import AtelierQueue
import Foundation

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the migrations built into this binary in order (each in a transaction); a no-op when up to date.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Apply the NNNN_name.sql files of this directory instead (they must go up to this build's schema version).")
    var dir: String?

    @Flag(help: "Only show which migrations are applied.")
    var status = false

    func run() async throws {
        let directory = dir.map { URL(fileURLWithPath: $0) }
        let status = self.status
        try await withQueue(database, logLevel: .info) { queue in
            let migrator = try Migrator(client: queue.client, logger: queue.logger, migrations: try directory.map { url throws(ConfigurationError) in try Migration.load(from: url) } ?? Migration.builtIn())
            if status {
                let applied = try await migrator.appliedMigrations()
                var table = Table("VERSION", "NAME", "STATE")
                for migration in migrator.migrations {
                    table.add(String(migration.version), migration.name,
                              applied.contains { $0.version == migration.version } ? "applied" : "pending")
                }
                say(table.render())
                return
            }
            let report = try await migrator.migrate()
            for version in report.editedAfterApply {
                FileHandle.standardError.write(Data(
                    "atelier: warning: migration \(version) changed after it was applied; add a new migration instead of editing an applied one\n".utf8))
            }
            if report.applied.isEmpty {
                say("database schema is up to date (version \(report.currentVersion))")
            } else {
                say("applied migration(s) \(report.applied.map(String.init).joined(separator: ", ")); schema is at version \(report.currentVersion)")
            }
        }
    }
}
