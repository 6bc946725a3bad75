import AtelierDatabase
import AtelierTestSupport
import Foundation
import Logging
import XCTest

/// The lines migrate as the containers migrate them: as a role that owns its database but is no
/// superuser, pgvector created beforehand by the superuser (ops/docker/postgres-entrypoint.sh).
/// Nothing in a line may need more, such as owning the extension (a `COMMENT ON EXTENSION` did).
final class MigratingRoleTests: XCTestCase {
    func testARoleThatOwnsOnlyItsDatabaseMigratesBothLines() async throws {
        let admin = try TestDatabase.adminURL()
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let (role, name, password) = ("atelier_owner_" + suffix, "atelier_owned_" + suffix, "pw-" + suffix)
        try await TestDatabase.adminExecute(admin, "CREATE ROLE \(role) LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '\(password)'")
        try await TestDatabase.adminExecute(admin, "CREATE DATABASE \(name) OWNER \(role)")
        do {
            try await TestDatabase.adminExecute(admin.with(database: name), "CREATE EXTENSION IF NOT EXISTS vector")
            var url = admin.with(database: name)
            url.username = role
            url.password = password
            var logger = Logger(label: "test")
            logger.logLevel = .error
            let database = Database(url: url, maxConnections: 2, logger: logger)
            let running = Task { await database.run() }
            defer { running.cancel() }
            let report = try await Migrator(database: database, lines: TestDatabase.allLines).migrate()
            XCTAssertEqual(report.versions, Dictionary(uniqueKeysWithValues: TestDatabase.allLines.map { ($0.name, $0.version) }))
            try await Migrator.requireCurrent(database: database, lines: TestDatabase.allLines)
        } catch {
            XCTFail(String(reflecting: error))
        }
        try await TestDatabase.adminExecute(admin, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try await TestDatabase.adminExecute(admin, "DROP ROLE IF EXISTS \(role)")
    }
}
