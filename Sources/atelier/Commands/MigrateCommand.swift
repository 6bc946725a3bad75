import ArgumentParser
import AtelierDatabase
import AtelierQueue
import AtelierStorage
import Foundation
import Logging

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the migrations built into this binary, the queue's line then the apps', each in a transaction; a no-op when up to date.",
        discussion: """
            Then the queue's functions and views (Sources/AtelierQueue/SQL) that differ from what the database
            has are applied, together in one transaction. Run it with the newest build you deploy: an older
            build puts its own definitions back. A database migrated before the two lines (at version 33 of
            the single line) is adopted as version 1 of both, applying nothing.

            With --create-bucket and ATELIER_BLOB_STORE=s3 it also creates the bucket ATELIER_S3_BUCKET names
            unless it exists: the one-shot set-up of a new deployment (docker-compose.yml's `init` service).
            ATELIER_STARTUP_WAIT (e.g. 2m) lets it wait that long for the database and the store to answer.
            """)

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Only show which migrations are applied.")
    var status = false

    @Flag(name: .customLong("create-bucket"), help: "Also create the S3 bucket (ATELIER_BLOB_STORE=s3) unless it exists.")
    var createBucket = false

    func run() async throws {
        let status = self.status
        let createBucket = self.createBucket
        try await withQueue(database, logLevel: .info) { queue in
            let migrator = try Migrator(database: queue.database, lines: SchemaLines.all)
            if status {
                let applied = try await migrator.appliedMigrations()
                var table = Table("LINE", "VERSION", "NAME", "STATE")
                for line in migrator.lines {
                    for migration in line.migrations {
                        table.add(line.name, String(migration.version), migration.name,
                                  applied.contains { $0.line == line.name && $0.version == migration.version } ? "applied" : "pending")
                    }
                }
                say(table.render())
                return
            }
            let report = try await migrator.migrate()
            for row in report.editedAfterApply {
                FileHandle.standardError.write(Data(
                    "atelier: warning: migration \(row.line) \(row.version) changed after it was applied; add a new migration instead of editing an applied one\n".utf8))
            }
            if report.adoptedSingleLine {
                say("adopted a database from before the migration lines: single line version 33 is version 1 of queue and apps")
            }
            let versions = migrator.lines.map { "\($0.name) \(report.versions[$0.name] ?? 0)" }.joined(separator: ", ")
            if report.applied.isEmpty {
                say("database schema is up to date (\(versions))")
            } else {
                say("applied migration(s) \(report.applied.map { "\($0.line) \($0.version)" }.joined(separator: ", ")); schema is at \(versions)")
            }
            if !report.definitionsApplied.isEmpty {
                say("applied definition(s) \(report.definitionsApplied.joined(separator: ", "))")
            }
            if createBucket { try await Self.createBucket() }
        }
    }

    /// The bucket of `ATELIER_S3_*`, made unless it is there; waits for the store within
    /// `ATELIER_STARTUP_WAIT`.
    private static func createBucket() async throws {
        let settings = Settings()
        guard try settings.blobStoreKind() == .s3 else {
            say("no bucket to create: ATELIER_BLOB_STORE is local")
            return
        }
        let store = try S3BlobStore(configuration: try settings.s3Configuration(), logger: Logger(label: "atelier.storage"))
        let made = try await StartupWait(settings: settings).retrying("the object store") { try await store.createBucket() }
        say(made ? "created bucket \(store.configuration.bucket)" : "bucket \(store.configuration.bucket) is there already")
    }
}
